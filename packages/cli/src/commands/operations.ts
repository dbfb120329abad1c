import type { Command } from 'commander';
import type { Config } from '@canon/runtime';
import type { Run } from '../lazy-port.js';
import { withPort } from '../lazy-port.js';



export function registerOperationCommands(program: Command, run: Run, config: () => Config): void {
  const schedule = program.command('schedule').description('the compile schedule of the key’s workspace (it compiles pending subjects and rebuilds after a compiler or policy change)');
  schedule
    .command('show')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { json?: boolean }) =>
        withPort(config(), async (port) => {
          const s = await port.schedule();
          console.log(opts.json ? JSON.stringify(s) : s ? `${s.cron} (${s.time_zone})` : 'no compile schedule');
        }),
      ),
    );
  schedule
    .command('set')
    .requiredOption('--cron <expression>', 'cron expression, e.g. "0 3 * * *"')
    .option('--tz <zone>', 'IANA time zone (default: the one the schedule has, else UTC)')
    .action(
      run(async (opts: { cron: string; tz?: string }) =>
        withPort(config(), async (port) => {
          // Not named, the zone stays: setting the hour alone must not move the night to UTC.
          const time_zone = opts.tz ?? (await port.schedule())?.time_zone ?? 'UTC';
          const s = await port.setSchedule({ cron: opts.cron, time_zone });
          console.log(`compile schedule: ${s.cron} (${s.time_zone})`);
        }),
      ),
    );

  const jobs = program.command('jobs').description('compile jobs: one by id, dead letters, redrive');
  jobs
    .command('show <job-id>')
    .action(run(async (id: string) => withPort(config(), async (port) => console.log(JSON.stringify(await port.job(id), null, 2)))));
  jobs
    .command('dead')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { json?: boolean }) =>
        withPort(config(), async (port) => {
          const dead = await port.deadLetters();
          if (opts.json) return console.log(JSON.stringify(dead));
          if (dead.length === 0) return console.log('no dead letters');
          console.table(dead.map((d) => ({ job: d.job_id, subject: d.subject, failed_at: d.failed_at, error: JSON.stringify(d.error).slice(0, 80) })));
        }),
      ),
    );
  jobs
    .command('redrive')
    .action(run(async () => withPort(config(), async (port) => console.log(`redriven ${await port.redrive()} jobs`))));
}
