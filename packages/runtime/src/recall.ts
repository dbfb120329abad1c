import { Instant, NotFoundError, ValidationError, view, type MemoryView, type Timeline } from '@canon/core';
import { memoriesByIds, memoriesOfSubject, type MemoryRow, type Sql } from '@canon/store';
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
}

export function summarize(row: Pick<MemoryRow, 'id' | 'subject' | 'etag'>, timeline: Timeline, at: string): MemorySummary {
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
    needs_verification: v.needs_verification,
    revision: timeline.revision,
    etag: row.etag,
  };
}

/** The memories of a subject seen at an instant (now, or `as_of`): a view computed on read. */
export async function subjectMemories(sql: Sql, principal: Principal, subject: string, at: string): Promise<MemorySummary[]> {
  const rows = await memoriesOfSubject(sql, principal.workspace_id, subject);
  return rows.filter((r) => visibleTo(principal, r.timeline)).map((r) => summarize(r, r.timeline, at));
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

export async function memoryDetail(sql: Sql, principal: Principal, id: string, at: string): Promise<MemoryDetail> {
  const row = (await memoriesByIds(sql, principal.workspace_id, [id])).get(id);
  // Another user's personal memory is as absent as one that does not exist.
  if (!row || !visibleTo(principal, row.timeline)) throw new NotFoundError(`no memory ${id}`);
  return { id: row.id, subject: row.subject, revision: row.revision, etag: row.etag, status: row.status, timeline: row.timeline, view: summarize(row, row.timeline, at) };
}
