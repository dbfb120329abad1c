import fs from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '@canon/runtime';
import type { CanonPort } from '@canon/runtime';
import type { Run } from '../lazy-port.js';
import { invalid, withPort } from '../lazy-port.js';
import { qualifierText } from '../qualifiers.js';



/** A value as a person reads it in a table cell: strings bare, everything else as JSON, cut short. */
const cell = (v: unknown, max = 60): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};
const qualifiers = qualifierText;

/** A --value given on the command line: JSON when it parses as JSON, else the text itself. */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function registerRecallCommands(program: Command, run: Run, config: () => Config): void {
  program
    .command('memories <subject>')
    .description('the memories of a subject: now, at --as-of (valid time), as known at --known-at (transaction time)')
    .option('--as-of <instant>', 'ISO 8601 date-time with offset: view the timeline at this instant')
    .option('--known-at <instant>', 'ISO 8601 date-time with offset: refold what was ingested by then')
    .option('--json', 'print JSON')
    .action(
      run(async (subject: string, opts: { asOf?: string; knownAt?: string; json?: boolean }) =>
        withPort(config(), async (port) => {
          const { everyPage } = await import('@canon/core/pages');
          const out = await everyPage('memories', (after) => port.memories(subject, { as_of: opts.asOf, known_at: opts.knownAt, after }));
          if (opts.json) return console.log(JSON.stringify(out));
          if (out.memories.length === 0) return console.log(`no memories of ${subject}`);
          console.log(`${subject} at ${out.as_of}${out.known_at ? `, as known at ${out.known_at}` : ''}`);
          console.table(
            out.memories.map((m) => ({
              fact: `${m.predicate}${qualifiers(m.qualifiers)}${m.scope === 'personal' ? ' (personal)' : ''}`,
              status: m.status,
              value:
                m.status === 'conflicted'
                  ? m.conflict.map((s) => cell(s.value, 25)).join(' vs ')
                  : m.current.map((v) => cell(v.value) + (v.conditions.length ? ` [${v.conditions.join('; ')}]` : '')).join(', '),
              scheduled: m.scheduled.map((s) => `${cell(s.value, 25)} from ${s.effective_from}`).join(', '),
              revision: m.revision,
              id: m.id,
            })),
          );
          // Candidates are shown, never applied: `canon link` makes two keys one memory.
          for (const m of out.memories) {
            for (const c of m.candidates) {
              if (c.memory_id < m.id) continue;
              const what = c.kind === 'possible_contradiction' ? 'POSSIBLE CONTRADICTION' : c.kind === 'possible_duplicate' ? 'possible duplicate' : 'candidate';
              console.log(`${what}: ${m.id} may be the same fact as ${c.memory_id} (score ${c.score.toFixed(2)}): ${c.values.map((v) => cell(v, 25)).join(', ') || '—'} vs ${c.other_values.map((v) => cell(v, 25)).join(', ') || '—'}`);
            }
          }
        }),
      ),
    );

  program
    .command('history <memory-id>')
    .description("a memory's timeline: every value with its interval and status, and what became of each claim")
    .option('--known-at <instant>', 'as it was known at this instant')
    .option('--json', 'print JSON')
    .action(
      run(async (id: string, opts: { knownAt?: string; json?: boolean }) =>
        withPort(config(), async (port) => {
          const m = await port.memory(id, { known_at: opts.knownAt });
          if (opts.json) return console.log(JSON.stringify(m));
          const t = m.timeline;
          console.log(`${t.fact_key.subject} · ${t.fact_key.predicate}${qualifiers(t.fact_key.qualifiers)}  revision ${m.revision}  ETag "${m.etag}"`);
          console.log(`policy: ${t.policy.cardinality}, ${t.policy.mode}, min role ${t.policy.min_role}`);
          console.table(
            t.values.map((v) => ({
              value: cell(v.value),
              from: v.valid_from,
              to: v.valid_to ?? '',
              status: v.superseded_by ? `${v.status} (${v.superseded_by})` : v.status,
              conditions: v.conditions.join('; '),
              standing: v.standing,
              evidence: v.evidence.map((e) => `${e.source}/${e.idempotency_key}#${e.index}`).join(', '),
            })),
          );
          console.table(t.decisions.map((d) => ({ claim: `${d.claim.source}/${d.claim.idempotency_key}#${d.claim.index}`, decision: d.kind, reason: d.reason })));
        }),
      ),
    );

  program
    .command('conflicts')
    .description('open disagreements, with every side and its sources')
    .option('--subject <subject>', 'only this subject')
    .option('--limit <n>', 'conflicts per page (1–1000)', '100')
    .option('--after <cursor>', 'the page after the one whose `next` this is')
    .option('--json', 'print JSON ({conflicts, next})')
    .action(
      run(async (opts: { subject?: string; limit: string; after?: string; json?: boolean }) =>
        withPort(config(), async (port) => {
          const page = await port.conflicts({ subject: opts.subject, limit: Number(opts.limit), ...(opts.after ? { after: opts.after } : {}) });
          if (opts.json) return console.log(JSON.stringify(page));
          const { conflicts, next } = page;
          // A page cut short says so, and how to read on: it never looks like the whole list.
          const more = () => {
            // The command to read on, with the options this page was read with.
            const same = `${opts.subject ? ` --subject ${JSON.stringify(opts.subject)}` : ''}${opts.limit !== '100' ? ` --limit ${opts.limit}` : ''}`;
            if (next !== null) console.log(`more open conflicts: canon conflicts${same} --after ${next}`);
          };
          if (conflicts.length === 0) {
            console.log(next === null ? 'no open conflicts' : 'no open conflicts on this page');
            return more();
          }
          console.table(
            conflicts.flatMap((c) =>
              c.sides.map((s, i) => ({
                memory: i === 0 ? c.memory_id : '',
                fact: i === 0 ? `${c.subject} · ${c.predicate}${qualifiers(c.qualifiers)}` : '',
                value: cell(s.value),
                standing: s.standing,
                sources: s.sources.map((x) => `${x.source}/${x.idempotency_key}${x.source_ref ? ` (${x.source_ref})` : ''}`).join(', '),
              })),
            ),
          );
          more();
        }),
      ),
    );

  program
    .command('resolve <memory-id>')
    .description('settle a conflict with a correction naming the claims of every side')
    .requiredOption('--value <value>', 'the value that holds (JSON, or plain text)')
    .requiredOption('--reason <reason>', 'why: kept with the correction episode')
    .option('--key <idempotency-key>', 'names this resolution, so a retry is recognised')
    .option('--json', 'print JSON')
    .action(
      run(async (id: string, opts: { value: string; reason: string; key?: string; json?: boolean }) =>
        withPort(config(), async (port) => {
          const out = await port.resolve(id, { value: parseValue(opts.value), reason: opts.reason, ...(opts.key ? { idempotency_key: opts.key } : {}) });
          if (opts.json) return console.log(JSON.stringify(out));
          console.log(`${out.outcome}: ${out.decision ? `${out.decision.kind} — ${out.decision.reason}` : 'no decision recorded'}`);
          console.log(`now ${out.memory.view.status}: ${out.memory.view.current.map((v) => cell(v.value)).join(', ')} (revision ${out.memory.revision})`);
        }),
      ),
    );

  const policies = program.command('policies').description("the workspace's predicate policies (a change rebuilds the affected subjects)");
  policies
    .command('show', { isDefault: true })
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { json?: boolean }) =>
        withPort(config(), async (port) => {
          const p = await port.policies();
          if (opts.json) return console.log(JSON.stringify(p));
          const d = p.effective.defaults;
          console.log(`time zone ${p.effective.time_zone}; defaults: ${d.cardinality}, ${d.mode}, min role ${d.min_role}; fingerprint ${p.fingerprint}`);
          const own = new Set(Object.keys(p.own?.predicates ?? {}));
          console.table(
            Object.entries(p.effective.predicates)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([predicate, x]) => ({ predicate, cardinality: x.cardinality, mode: x.mode, min_role: x.min_role, from: own.has(predicate) ? 'workspace' : 'connector' })),
          );
        }),
      ),
    );
  policies
    .command('set <file>')
    .description('replace the workspace’s own policies with a JSON file {defaults?, predicates?, time_zone?}')
    .option('--json', 'print JSON')
    .action(
      run(async (file: string, opts: { json?: boolean }) =>
        withPort(config(), async (port) => {
          // The file's JSON as it is: the runtime checks it, in this process or at the server.
          let input: Parameters<CanonPort['setPolicies']>[0];
          try {
            input = JSON.parse(fs.readFileSync(file, 'utf8'));
          } catch (err) {
            throw await invalid(`${file}: ${(err as Error).message}`);
          }
          const change = await port.setPolicies(input);
          if (opts.json) return console.log(JSON.stringify(change));
          if (!change.changed) return console.log('policies unchanged');
          console.log(`policies saved (fingerprint ${change.fingerprint}); ${change.rebuild.subjects.length} subjects ${change.rebuild.mode === 'queued' ? 'queued for a rebuild' : 'rebuilt'}`);
        }),
      ),
    );

  program
    .command('preview')
    .description("what compiling would change, writing nothing: under proposed policies (--policies FILE.json), or without them under this build's compiler; exit 1 when anything would change")
    .option('--policies <file>', 'a JSON file of proposed workspace policies, as `canon policies set` takes')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { policies?: string; json?: boolean }) =>
        withPort(config(), async (port) => {
          // The file's JSON as it is: the runtime checks it, in this process or at the server.
          let policies: Parameters<CanonPort['setPolicies']>[0] | undefined;
          if (opts.policies !== undefined) {
            try {
              policies = JSON.parse(fs.readFileSync(opts.policies, 'utf8'));
            } catch (err) {
              throw await invalid(`${opts.policies}: ${(err as Error).message}`);
            }
          }
          const out = await port.preview(policies === undefined ? {} : { policies });
          // For CI: "this policy change touches 14 memories" fails the step.
          if (out.changed > 0) process.exitCode = 1;
          if (opts.json) return console.log(JSON.stringify(out));
          if (out.changed === 0) return console.log(`nothing would change (${out.subjects} subjects folded, ${out.compiler_version})`);
          const side = (s: { status: string; values: unknown[] } | null) => (s === null ? '—' : `${s.status}: ${s.values.map((v) => cell(v, 25)).join(' vs ') || '—'}`);
          console.table(out.changes.map((c) => ({ subject: c.subject, fact: c.predicate, change: c.change, now: side(c.before), after: side(c.after), id: c.memory_id })));
          console.log(`${out.changed} memories would change in ${out.subjects} subjects${out.truncated ? ` (the first ${out.changes.length} listed)` : ''}`);
        }),
      ),
    );

  program
    .command('erase')
    .description('erase a subject, or every episode a user wrote or owns, and everything derived (audited; re-syncs answer erased)')
    .option('--subject <subject>', 'the subject to erase')
    .option('--user <user>', 'the user whose episodes to erase')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { subject?: string; user?: string; json?: boolean }) => {
        if ((opts.subject === undefined) === (opts.user === undefined)) throw await invalid('give --subject S or --user U');
        await withPort(config(), async (port) => {
          const out = await port.erase(opts.subject !== undefined ? { subject: opts.subject } : { user: opts.user! });
          if (opts.json) return console.log(JSON.stringify(out));
          console.log(`erased ${out.episodes} episodes and ${out.memories} memories of ${out.subjects.length} subjects (erasure ${out.erasure_id})`);
          if (out.rebuilt.length > 0) console.log(`rebuilt ${out.rebuilt.length} subjects from what remains`);
          if (out.keys_revoked > 0) console.log(`revoked ${out.keys_revoked} keys of that user`);
        });
      }),
    );
}
