import { Instant, NotFoundError, ValidationError, view, type MemoryView, type Timeline } from '@canon/core';
import { memoriesByIds, memoriesOfSubject, memoryIdLinkingKey, type MemoryRow, type Sql } from '@canon/store';
import { candidateViews, type CandidateView } from './links/candidate-view.js';
import type { Principal } from './principal.js';

/** Personal memories are their owner's alone; workspace memories are every key's of the workspace. */
export function visibleTo(principal: Principal, t: Pick<Timeline, 'fact_key'>): boolean {
  return t.fact_key.scope === 'workspace' || (principal.user !== null && t.fact_key.owner === principal.user);
}

export function parseInstant(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  const parsed = Instant.safeParse(value);
  if (!parsed.success) throw new ValidationError(`${name}: not an ISO 8601 date-time with offset: ${value}`);
  return parsed.data;
}

export interface MemorySummary {
  id: string;
  key: string;
  subject: string;
  predicate: string;
  qualifiers: Record<string, string>;
  scope: 'workspace' | 'personal';
  status: MemoryView['status'];
  current: Array<{ value: unknown; conditions: string[]; valid_from: string; valid_to: string | null; evidence_count: number }>;
  scheduled: Array<{ value: unknown; effective_from: string; conditions: string[] }>;
  conflict: Array<{ value: unknown; standing: number; sources: Array<{ source: string; idempotency_key: string; source_ref: string | null; text: string }> }>;
  needs_verification: boolean;
  revision: number;
  etag: string;
  /**
   * Memories that may be this fact worded otherwise (design §1, law 3), with a score and the
   * reason; a `possible_contradiction` also sets `needs_verification`. Never applied: only a
   * link makes two keys one memory.
   */
  candidates: CandidateView[];
  /** Other fact keys linked into this memory. */
  linked: string[];
}

export function summarize(row: Pick<MemoryRow, 'id' | 'subject' | 'etag'>, timeline: Timeline, at: string, candidates: CandidateView[] = []): MemorySummary {
  const v = view(timeline, at);
  return {
    id: row.id,
    key: timeline.key,
    subject: row.subject,
    predicate: timeline.fact_key.predicate,
    qualifiers: timeline.fact_key.qualifiers,
    scope: timeline.fact_key.scope,
    status: v.status,
    current: v.current.map((x) => ({
      value: x.value,
      conditions: x.conditions,
      valid_from: x.valid_from,
      valid_to: x.valid_to,
      evidence_count: x.evidence.length,
    })),
    scheduled: v.scheduled.map((s) => ({ value: s.value, effective_from: s.effective_from, conditions: s.conditions })),
    conflict: v.conflict.map((c) => ({
      value: c.value,
      standing: c.standing,
      sources: c.evidence.map((e) => ({ source: e.source, idempotency_key: e.idempotency_key, source_ref: e.source_ref, text: e.text })),
    })),
    needs_verification: v.needs_verification || candidates.some((c) => c.kind === 'possible_contradiction'),
    revision: timeline.revision,
    etag: row.etag,
    candidates,
    linked: timeline.linked ?? [],
  };
}

/** The memories of a subject seen at an instant (now, or `as_of`): a view computed on read. */
export async function subjectMemories(sql: Sql, principal: Principal, subject: string, at: string): Promise<MemorySummary[]> {
  const rows = (await memoriesOfSubject(sql, principal.workspace_id, subject)).filter((r) => visibleTo(principal, r.timeline));
  const timelines = new Map(rows.map((r) => [r.id, r.timeline] as const));
  return rows.map((r) => summarize(r, r.timeline, at, candidateViews(r.timeline, r.candidates, timelines, at)));
}

export interface MemoryDetail {
  id: string;
  subject: string;
  revision: number;
  etag: string;
  status: string;
  timeline: Timeline;
  view: MemorySummary;
}

/**
 * One memory by id. The id of a key linked into another memory finds that memory (its `id` is
 * then the canonical one): a caller holding either id reads the one fact.
 */
export async function memoryDetail(sql: Sql, principal: Principal, id: string, at: string): Promise<MemoryDetail> {
  let row = (await memoriesByIds(sql, principal.workspace_id, [id])).get(id);
  if (!row) {
    const into = await memoryIdLinkingKey(sql, principal.workspace_id, id);
    if (into) row = (await memoriesByIds(sql, principal.workspace_id, [into])).get(into);
  }
  // Another user's personal memory is as absent as one that does not exist.
  if (!row || !visibleTo(principal, row.timeline)) throw new NotFoundError(`no memory ${id}`);
  const others = await memoriesByIds(sql, principal.workspace_id, (row.candidates ?? []).map((c) => c.memory_id));
  const visible = new Map([...others.values()].filter((o) => visibleTo(principal, o.timeline)).map((o) => [o.id, o.timeline] as const));
  const candidates = candidateViews(row.timeline, row.candidates, visible, at);
  return { id: row.id, subject: row.subject, revision: row.revision, etag: row.etag, status: row.status, timeline: row.timeline, view: summarize(row, row.timeline, at, candidates) };
}
