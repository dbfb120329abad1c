import type { MemorySummary, OpenConflict } from '@canon/runtime';
import { qualifierText, quote } from './framing.js';

/** One line of a live memory, as an agent reads it: its values, what is scheduled, its candidates. */
export function memoryLine(m: MemorySummary): string {
  if (m.status === 'conflicted') return conflictLine({ ...m, sides: m.conflict, memory_id: m.id });
  const values = m.current.map((v) => `${quote(v.value)}${v.conditions.length ? ` (conditions: ${v.conditions.map(quote).join(', ')})` : ''} since ${v.valid_from}`);
  const scheduled = m.scheduled.map((s) => `; scheduled ${quote(s.value)} from ${s.effective_from}`);
  const candidates = m.candidates.map(
    (c) =>
      `; ${c.kind === 'possible_contradiction' ? 'POSSIBLE CONTRADICTION, needs verification: ' : ''}may be the same fact as ${quote(c.predicate)} [memory ${c.memory_id}] (score ${c.score.toFixed(2)}): ${c.values.map(quote).join(', ') || '—'} vs ${c.other_values.map(quote).join(', ') || '—'}`,
  );
  return `- ${m.subject} · ${m.predicate}${qualifierText(m.qualifiers)}: ${values.join(', ') || '(nothing yet)'}${scheduled.join('')}${candidates.join('')} [memory ${m.id}]`;
}

type ConflictLike = Pick<OpenConflict, 'memory_id' | 'subject' | 'predicate' | 'qualifiers'> & {
  sides: ReadonlyArray<{ value: unknown; sources: ReadonlyArray<{ source: string; idempotency_key: string }> }>;
};

/** One line of a disagreement: every side with the sources behind it. */
export function conflictLine(c: ConflictLike): string {
  const sides = c.sides.map((s) => `${quote(s.value)} (${s.sources.map((x) => `${x.source}/${x.idempotency_key}`).join(', ')})`);
  return `- ${c.subject} · ${c.predicate}${qualifierText(c.qualifiers)}: CONFLICT, needs verification: ${sides.join(' vs ')} [memory ${c.memory_id}]`;
}
