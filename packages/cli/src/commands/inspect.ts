import type { Command } from 'commander';
import type { Run } from '../lazy-port.js';
import type { CanonPort, Config, InspectedMemory, MemorySections } from '@canon/runtime';
import type { LoggedEpisode } from '@canon/store';
import { qualifierText } from '../qualifiers.js';


interface EpisodeLine {
  id: string;
  idempotency_key: string;
  kind: string;
  occurred_at: string;
  source_ref: string | null;
  says: string;
}

export interface TerminalInspection extends MemorySections {
  subject: string;
  as_of: string;
  sources: Array<{ source: string; episodes: EpisodeLine[] }>;
}

const q = (v: unknown) => JSON.stringify(v) ?? 'null';
const qual = qualifierText;
const ref = (r: { source: string; idempotency_key: string; index: number | null }) => `${r.source}/${r.idempotency_key}${r.index === null ? '' : `#${r.index}`}`;

function says(e: LoggedEpisode): string {
  const claims = e.body.claims ?? [];
  const parts = claims.map((c) => `${c.predicate}${qual(c.qualifiers ?? {})} = ${q(c.value)}${c.effective_from ? ` from ${c.effective_from}` : ''}${c.correction ? ' (correction)' : ''}`);
  if (e.body.text) parts.push(q(e.body.text.length > 120 ? `${e.body.text.slice(0, 117)}...` : e.body.text));
  return parts.join('; ');
}

/** A subject's whole story through the port: the log by source, and every memory with its timeline. */
export async function loadInspection(port: CanonPort, subject: string, asOf?: string): Promise<TerminalInspection> {
  const { everyPage } = await import('@canon/core/pages');
  const page = await everyPage('memories', (after) => port.memories(subject, { as_of: asOf, limit: 1000, after }));
  const memories: InspectedMemory[] = [];
  for (const m of page.memories) {
    const d = await port.memory(m.id, { as_of: asOf });
    memories.push({ id: d.id, subject: d.subject, revision: d.revision, timeline: d.timeline, view: d.view });
  }
  const bySource = new Map<string, EpisodeLine[]>();
  let after: string | undefined;
  do {
    const log = await port.episodes(subject, after, 1000);
    for (const e of log.episodes) {
      const list = bySource.get(e.source) ?? [];
      list.push({ id: e.id, idempotency_key: e.idempotency_key, kind: e.kind, occurred_at: e.occurred_at, source_ref: e.source_ref, says: says(e) });
      bySource.set(e.source, list);
    }
    after = log.next ?? undefined;
  } while (after);
  const sources = [...bySource.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([source, episodes]) => ({ source, episodes }));
  const { inspectMemories } = await import('@canon/runtime');
  return { subject, as_of: page.as_of, sources, ...inspectMemories(memories) };
}

export function renderInspection(r: TerminalInspection): string {
  const out: string[] = [`Subject ${r.subject} at ${r.as_of}`, ''];
  const section = (title: string, n: number, lines: string[]) => {
    out.push(`${title} (${n})`);
    out.push(...(lines.length ? lines : ['  (none)']), '');
  };
  const episodes = r.sources.reduce((a, s) => a + s.episodes.length, 0);
  section(
    'Episodes by source',
    episodes,
    r.sources.flatMap((s) => [
      `  ${s.source} (${s.episodes.length})`,
      ...s.episodes.map((e) => `    ${e.occurred_at}  ${e.idempotency_key}  ${e.kind}  ${e.says}${e.source_ref ? `  <${e.source_ref}>` : ''}`),
    ]),
  );
  section(
    'Current memories',
    r.current.length,
    r.current.map((m) => {
      const values = m.values.map((v) => `${q(v.value)}${v.conditions.length ? ` if ${v.conditions.map(q).join(' and ')}` : ''} since ${v.valid_from} (${v.evidence_count} evidence)`);
      const scheduled = m.scheduled.map((s) => `; then ${q(s.value)} from ${s.effective_from}`);
      return `  ${m.predicate}${qual(m.qualifiers)}: ${values.join(', ') || '(nothing yet)'}${scheduled.join('')}  [${m.memory_id}]`;
    }),
  );
  section(
    'Superseded values',
    r.superseded.length,
    r.superseded.map(
      (s) =>
        `  ${s.predicate}${qual(s.qualifiers)}: ${q(s.value)} from ${s.valid_from}, replaced ${s.replaced_at ? `at ${s.replaced_at} ` : ''}by ${s.how === 'correction' ? 'correction' : 'change'}${s.by ? ` ${ref(s.by)}` : ''}${s.by_value !== null ? ` → ${q(s.by_value)}` : ''}`,
    ),
  );
  section(
    'Overruled claims',
    r.overruled.length,
    r.overruled.map((o) => `  ${o.predicate}${qual(o.qualifiers)}: ${q(o.value)} from ${ref(o.claim)}${o.role ? ` (${o.role})` : ''} — ${o.reason}`),
  );
  section(
    'Open conflicts',
    r.conflicts.length,
    r.conflicts.map((c) => `  ${c.predicate}${qual(c.qualifiers)}: ${c.sides.map((s) => `${q(s.value)} (${s.sources.map((x) => `${x.source}/${x.idempotency_key}`).join(', ')})`).join(' vs ')}  [${c.memory_id}]`),
  );
  section(
    'Possible duplicates and contradictions (candidates, not applied: canon link decides)',
    r.candidates.reduce((n, m) => n + m.candidates.length, 0),
    r.candidates.flatMap((m) =>
      m.candidates.map(
        (c) =>
          `  ${m.predicate}${qual(m.qualifiers)} [${m.memory_id}] may be the same fact as ${c.predicate} [${c.memory_id}] (score ${c.score.toFixed(2)}, ${c.kind.replace(/_/g, ' ')}): ${c.values.map(q).join(', ') || '—'} vs ${c.other_values.map(q).join(', ') || '—'}${c.proposed ? `; proposed ${c.proposed.same ? 'link' : 'as distinct'} by ${c.proposed.source}/${c.proposed.idempotency_key}` : ''}`,
      ),
    ),
  );
  section(
    'Decisions',
    r.decisions.length,
    r.decisions.map((d) => `  ${d.predicate}${qual(d.qualifiers)}  ${ref(d.claim)}  ${d.kind}${d.target ? ` ${ref(d.target)}` : ''}: ${d.reason}`),
  );
  return out.join('\n');
}

export function registerInspectCommand(program: Command, run: Run, config: () => Config): void {
  program
    .command('inspect <subject>')
    .description("a subject's whole story: episodes by source, current memories, superseded values, overruled claims, open conflicts, every decision and its reason")
    .option('--as-of <instant>', 'see the subject as of this instant (ISO 8601 with offset)')
    .option('--json', 'print JSON')
    .action(
      run(async (subject: string, opts: { asOf?: string; json?: boolean }) => {
        const { openPort } = await import('../port.js');
        const port = await openPort(config(), { queue: false });
        try {
          const report = await loadInspection(port, subject, opts.asOf);
          console.log(opts.json ? JSON.stringify(report, null, 2) : renderInspection(report));
        } finally {
          await port.close();
        }
      }),
    );
}
