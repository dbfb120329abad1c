import type { MemoryDetail, MemorySummary, OpenConflict } from '@canon/runtime';
import { qualifierText, quote } from './framing.js';
import type { z } from 'zod';
import type { ConflictOut, MemoryOut } from './shapes.js';

export type MemoryOut = z.infer<typeof MemoryOut>;
export type ConflictOut = z.infer<typeof ConflictOut>;

export function memoryOut(m: MemorySummary): MemoryOut {
  return {
    memory_id: m.id,
    subject: m.subject,
    predicate: m.predicate,
    qualifiers: m.qualifiers,
    scope: m.scope,
    status: m.status,
    values: m.current.map((v) => ({ value: v.value, conditions: v.conditions, valid_from: v.valid_from, valid_to: v.valid_to })),
    scheduled: m.scheduled,
    candidates: m.candidates.map((c) => ({ memory_id: c.memory_id, predicate: c.predicate, score: c.score, reason: c.reason, kind: c.kind, values: c.values, other_values: c.other_values })),
  };
}

/** A conflicted memory as one conflict with every side and the sources behind each. */
export function conflictOut(m: MemorySummary): ConflictOut {
  return {
    memory_id: m.id,
    subject: m.subject,
    predicate: m.predicate,
    qualifiers: m.qualifiers,
    scope: m.scope,
    needs_verification: true,
    required_standing: null,
    sides: m.conflict.map((c) => ({ value: c.value, standing: c.standing, sources: c.sources.map(sourceOut) })),
  };
}

/** An open conflict as the runtime lists it, with the standing a resolution needs. */
export function openConflictOut(c: OpenConflict): ConflictOut {
  return {
    memory_id: c.memory_id,
    subject: c.subject,
    predicate: c.predicate,
    qualifiers: c.qualifiers,
    scope: c.scope,
    needs_verification: true,
    required_standing: c.required_standing,
    sides: c.sides.map((s) => ({ value: s.value, standing: s.standing, sources: s.sources.map(sourceOut) })),
  };
}

const sourceOut = (x: { source: string; idempotency_key: string; source_ref: string | null; text: string }) => ({
  source: x.source,
  idempotency_key: x.idempotency_key,
  source_ref: x.source_ref,
  text: x.text,
});

export function memoryLine(m: MemoryOut): string {
  const values = m.values.map((v) => `${quote(v.value)}${v.conditions.length ? ` (conditions: ${v.conditions.map(quote).join(', ')})` : ''} since ${v.valid_from}`);
  const scheduled = m.scheduled.map((s) => `; scheduled ${quote(s.value)} from ${s.effective_from}`);
  const candidates = m.candidates.map(
    (c) =>
      `; ${c.kind === 'possible_contradiction' ? 'POSSIBLE CONTRADICTION, needs verification: ' : ''}may be the same fact as ${quote(c.predicate)} [memory ${c.memory_id}] (score ${c.score.toFixed(2)}): ${c.values.map(quote).join(', ') || '—'} vs ${c.other_values.map(quote).join(', ') || '—'}`,
  );
  return `- ${m.subject} · ${m.predicate}${qualifierText(m.qualifiers)}: ${values.join(', ') || '(nothing yet)'}${scheduled.join('')}${candidates.join('')} [memory ${m.memory_id}]`;
}

export function conflictLine(c: ConflictOut): string {
  const sides = c.sides.map((s) => `${quote(s.value)} (${s.sources.map((x) => `${x.source}/${x.idempotency_key}`).join(', ')})`);
  return `- ${c.subject} · ${c.predicate}${qualifierText(c.qualifiers)}: CONFLICT, needs verification: ${sides.join(' vs ')} [memory ${c.memory_id}]`;
}

export function historyOut(d: MemoryDetail) {
  const t = d.timeline;
  return {
    memory_id: d.id,
    subject: d.subject,
    predicate: t.fact_key.predicate,
    qualifiers: t.fact_key.qualifiers,
    scope: t.fact_key.scope,
    status: d.view.status,
    revision: d.revision,
    values: t.values.map((v) => ({
      value: v.value,
      valid_from: v.valid_from,
      valid_to: v.valid_to,
      status: v.status,
      superseded_by: v.superseded_by,
      ended_by: v.ended_by,
      conditions: v.conditions,
      standing: v.standing,
      support: v.support,
      evidence: v.evidence.map((e) => ({
        source: e.source,
        idempotency_key: e.idempotency_key,
        index: e.index,
        source_ref: e.source_ref,
        role: e.role,
        occurred_at: e.occurred_at,
        effective_from: e.effective_from,
        text: e.text,
        correction: e.correction,
      })),
    })),
    decisions: t.dispositions.map((x) => ({ claim: x.claim, kind: x.kind, target: x.target, reason: x.reason })),
  };
}
