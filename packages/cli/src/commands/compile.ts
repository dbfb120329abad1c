import type { Command } from 'commander';
import type { CanonPort, CompileResult, Config, JobView, VerifyReport } from '@canon/runtime';
import type { Run } from '../lazy-port.js';
import { invalid, openPort, withPort } from '../lazy-port.js';


interface TargetOptions {
  subject?: string;
  all?: boolean;
  json?: boolean;
}

const COUNTERS = ['episodes_processed', 'memories_created', 'memories_updated', 'memories_superseded', 'conflicts_opened', 'tombstoned'] as const;

/** `command`: the one whose help the message points to (compile, verify, rebuild …). */
async function target(opts: TargetOptions, command = 'compile'): Promise<{ subject: string } | { all: true }> {
  if (opts.subject && opts.all) throw await invalid('give --subject S or --all, not both');
  if (opts.subject) return { subject: opts.subject };
  if (opts.all) return { all: true };
  throw await invalid(`give --subject S or --all (canon ${command} --help)`);
}

/** The subjects a `--subject S | --all` option names. */
async function subjectsOf(port: CanonPort, t: { subject: string } | { all: true }): Promise<string[]> {
  return 'subject' in t ? [t.subject] : (await port.subjects()).map((s) => s.subject);
}

interface FailedSubject {
  subject: string;
  error: string;
}

/** Subjects that could not be compiled or verified: the others went on, these are named. */
function printFailed(failed: readonly FailedSubject[]): void {
  for (const f of failed) console.log(`FAIL ${f.subject}: ${f.error}`);
  if (failed.length > 0) console.log(`${failed.length} subject${failed.length === 1 ? '' : 's'} failed`);
}

function printResult(r: CompileResult): void {
  console.log(`${r.subject}: ${COUNTERS.map((c) => `${c} ${r[c]}`).join(', ')}\n  state_hash ${r.state_hash} (${r.compiler_version})`);
}

async function waitForJob(poll: () => Promise<JobView>, timeoutMs = 3_600_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    const job = await poll();
    if (job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled') return job;
    if (Date.now() > deadline) throw new Error(`job ${job.job_id} still ${job.state} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

export function registerCompileCommands(program: Command, run: Run, config: () => Config): void {
  program
    .command('compile')
    .description('compile pending episodes into memories (a second run reports zeros)')
    .option('--subject <subject>', 'one subject')
    .option('--all', 'every subject of the workspace')
    .option('--async', 'queue a job and print its id')
    .option('--wait', 'with --async: wait for the job and print its result')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: TargetOptions & { async?: boolean; wait?: boolean }) => {
        // A compile without --async already waits; --wait alone would be read as asked and do nothing.
        if (opts.wait && !opts.async) throw await invalid('--wait goes with --async (a compile without --async waits already)');
        // What to compile is checked before any database is opened: a usage error is told as one.
        const what = await target(opts);
        const port = await openPort(config());
        try {
          const out = await port.compile({ ...what, async: Boolean(opts.async) });
          if (out.async) {
            if (!opts.wait) {
              console.log(opts.json ? JSON.stringify({ job_id: out.job_id }) : out.job_id);
              return;
            }
            const job = await waitForJob(() => port.job(out.job_id));
            if (opts.json) console.log(JSON.stringify(job));
            else console.log(`job ${job.job_id} ${job.state}${job.result ? `: ${JSON.stringify((job.result as { totals?: unknown }).totals ?? job.result)}` : ''}`);
            const jobFailed = (job.result as { failed?: FailedSubject[] } | undefined)?.failed ?? [];
            if (!opts.json) printFailed(jobFailed);
            if (job.state !== 'completed' || jobFailed.length > 0) process.exitCode = 1;
            return;
          }
          const result = out.result;
          const failed = 'results' in result ? (result.failed ?? []) : [];
          if (failed.length > 0) process.exitCode = 1;
          if (opts.json) return console.log(JSON.stringify(out.result));
          if ('results' in result) {
            for (const r of result.results) printResult(r);
            console.log(`${result.subjects} subjects: ${COUNTERS.map((c) => `${c} ${result.totals[c]}`).join(', ')}`);
            printFailed(failed);
          } else printResult(result);
        } finally {
          await port.close();
        }
      }),
    );

  program
    .command('rebuild')
    .description('recompute subjects from their whole log')
    .option('--subject <subject>', 'one subject')
    .option('--all', 'every subject of the workspace')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: TargetOptions) => {
        // As for compile: a usage error is told before any database is opened.
        const what = await target(opts, 'rebuild');
        await withPort(config(), async (port) => {
          const results: CompileResult[] = [];
          for (const s of await subjectsOf(port, what)) results.push(await port.rebuild(s));
          if (opts.json) console.log(JSON.stringify(results));
          else results.forEach(printResult);
        });
      }),
    );

  program
    .command('verify')
    .description('for CI: compile, compile again expecting zeros, recompute from the log expecting the same state_hash')
    .option('--subject <subject>', 'one subject')
    .option('--all', 'every subject of the workspace')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: TargetOptions) => {
        const what = await target(opts, 'verify');
        await withPort(config(), async (port) => {
          const reports: VerifyReport[] = [];
          const errors: FailedSubject[] = [];
          for (const s of await subjectsOf(port, what)) {
            try {
              reports.push(await port.verify(s));
            } catch (err) {
              // A key that may not verify stops here; a subject that cannot be verified does not stop the others.
              if (err instanceof (await import('@canon/core/errors')).CanonError && (err.type === 'unauthorized' || err.type === 'forbidden')) throw err;
              errors.push({ subject: s, error: err instanceof Error ? err.message : String(err) });
            }
          }
          const failed = reports.filter((r) => !r.ok);
          // A subject named by --subject with nothing in it (a typo, or a name this key may not
          // see: the two answer alike) verifies trivially; a CI step that names one means some.
          const { EMPTY_STATE_HASH } = await import('@canon/core/empty-state-hash');
          const empty = opts.subject !== undefined ? reports.filter((r) => r.ok && r.rebuilt_state_hash === EMPTY_STATE_HASH).map((r) => r.subject) : [];
          if (errors.length > 0 || empty.length > 0) process.exitCode = 1;
          if (opts.json) console.log(JSON.stringify({ ok: failed.length === 0 && errors.length === 0 && empty.length === 0, reports, errors, ...(empty.length > 0 ? { empty } : {}) }));
          else {
            for (const r of reports) {
              if (empty.includes(r.subject)) {
                console.log(`EMPTY ${r.subject}  nothing to verify: no memories here (a subject no one wrote, or one this key may not see)`);
                continue;
              }
              console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.subject}  state_hash ${r.rebuilt_state_hash}`);
              for (const d of r.differences) {
                console.log(`     ${d.what}${d.key ? ` on ${d.key}` : ''}\n       expected ${JSON.stringify(d.expected)}\n       actual   ${JSON.stringify(d.actual)}`);
              }
            }
            const held = reports.length - empty.length;
            if (held > 0 || empty.length === 0) console.log(failed.length === 0 ? `verified ${held} subjects` : `${failed.length} of ${held} subjects differ`);
            printFailed(errors);
          }
          if (failed.length > 0) process.exitCode = 1;
        });
      }),
    );
}
