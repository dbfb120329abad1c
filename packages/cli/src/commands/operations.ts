import type { Command } from 'commander';
import type { Config } from '@canon/runtime';
import type { Run } from '../client.js';
import { withClient } from '../lazy-client.js';



export function registerOperationCommands(program: Command, run: Run, config: () => Config): void {
  const schedule = program.command('schedule').description('the nightly compile (pending subjects, and rebuilds after a compiler or policy change)');
  schedule
    .command('show')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { json?: boolean }) =>
        withClient(config(), async (client) => {
          const s = await client.schedule();
          console.log(opts.json ? JSON.stringify(s) : s ? `${s.cron} (${s.time_zone})` : 'no nightly schedule');
        }),
      ),
    );
  schedule
    .command('set')
    .requiredOption('--cron <expression>', 'cron expression, e.g. "0 3 * * *"')
    .option('--tz <zone>', 'IANA time zone', 'UTC')
    .action(
      run(async (opts: { cron: string; tz: string }) =>
        withClient(config(), async (client) => {
          const s = await client.setSchedule({ cron: opts.cron, time_zone: opts.tz });
          console.log(`nightly compile: ${s.cron} (${s.time_zone})`);
        }),
      ),
    );

  const jobs = program.command('jobs').description('compile jobs: one by id, dead letters, redrive');
  jobs
    .command('show <job-id>')
    .action(run(async (id: string) => withClient(config(), async (client) => console.log(JSON.stringify(await client.job(id), null, 2)))));
  jobs
    .command('dead')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { json?: boolean }) =>
        withClient(config(), async (client) => {
          const dead = await client.deadLetters();
          if (opts.json) return console.log(JSON.stringify(dead));
          if (dead.length === 0) return console.log('no dead letters');
          console.table(dead.map((d) => ({ job: d.job_id, subject: d.subject, failed_at: d.failed_at, error: JSON.stringify(d.error).slice(0, 80) })));
        }),
      ),
    );
  jobs
    .command('redrive')
    .action(run(async () => withClient(config(), async (client) => console.log(`redriven ${await client.redrive()} jobs`))));
}
