import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Config } from '@canon/runtime';
import { withPort } from '../lazy-port.js';

type Run = <A extends unknown[]>(fn: (...args: A) => Promise<void>) => (...args: A) => Promise<void>;

export function registerLinkCommand(program: Command, run: Run, config: () => Config): void {
  program
    .command('link <memory-id> <other-memory-id>')
    .description('state that two memories of one subject are one fact (or, with --distinct, two): a link episode, compiled at once')
    .option('--distinct', 'they are different facts: silences their candidate and undoes an earlier link of the pair')
    .option('--reason <reason>', 'why: kept with the link episode')
    .option('--key <idempotency-key>', 'names this link, so a retry is recognised (default: a new key)')
    .option('--json', 'print JSON')
    .action(
      run(async (first: string, second: string, opts: { distinct?: boolean; reason?: string; key?: string; json?: boolean }) =>
        withPort(config(), async (port) => {
          const out = await port.link({
            memories: [first, second],
            same: !opts.distinct,
            idempotency_key: opts.key ?? `cli-link:${randomUUID()}`,
            ...(opts.reason ? { reason: opts.reason } : {}),
          });
          if (opts.json) return console.log(JSON.stringify(out));
          const m = out.memory;
          // A proposal stands below what the link needs: the policy's minimum for links and the
          // standing of every claim of both memories (an owner's fact is linked by an owner).
          const note = out.in_force
            ? ''
            : out.outcome === 'proposed'
              ? " (recorded as a proposal, not applied: a link needs the standing of every claim it joins and the policy's minimum for links)"
              : ' (not in force: a statement of higher standing on the pair, or a link through a third memory, decides otherwise)';
          console.log(`${out.outcome}${note}: episode ${out.episode_id}`);
          console.log(`memory ${m.id} now ${m.view.status}: ${m.view.current.map((v) => JSON.stringify(v.value)).join(', ')}${m.view.linked.length ? ` (${m.view.linked.length + 1} keys linked)` : ''}`);
        }),
      ),
    );
}
