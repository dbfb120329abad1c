import { compareInstants, type Claim, type Timeline } from '@canon/core';
import { memoriesByIds, memoryHeadsOfSubject, type MemoryRow, type NewChange, type PoolClient } from '@canon/store';
import { classifySides, sideAt, type ChangeSide } from './kinds.js';

/** A memory as it read before a rebuild deleted it. */
interface PriorMemory {
  digest: string;
  side: ChangeSide;
  key: string;
  predicate: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
}

/**
 * What one compile changed, gathered while it writes (design §11): one row per memory whose view
 * at the compile's instant differs from before. A memory rewritten with the same view (a
 * restatement, one more piece of evidence) records nothing, and neither does a compile or a
 * rebuild that writes nothing new, so the feed follows the facts and recompiling adds no row.
 */
export interface ChangeLog {
  readonly at: string;
  readonly subject: string;
  /** A rebuild's memories before it deleted them, to compare the rebuilt ones with. */
  readonly prior: Map<string, PriorMemory> | null;
  /** An erasure's rebuild: what it changed may not say what was there, nor name the erased user. */
  readonly erasure: { user: string | null } | null;
  readonly rows: NewChange[];
  /** Per memory, the last episode of the compile with a claim on it. */
  readonly causes: Map<string, string>;
}

export function newChangeLog(subject: string, at: string, prior: Map<string, PriorMemory> | null = null, erasure: ChangeLog['erasure'] = null): ChangeLog {
  return { at, subject, prior, erasure, rows: [], causes: new Map() };
}

/** Claims come in log order: the last one seen on a memory names its cause. */
export function noteClaims(log: ChangeLog, claims: readonly Claim[]): void {
  for (const c of claims) log.causes.set(c.memory_id, c.episode_id);
}

/**
 * Reads what a rebuild is about to delete: each memory's digest and its view now, from the stored
 * summary when it holds at the instant, else from the timeline.
 */
export async function priorMemories(tx: PoolClient, workspaceId: string, subject: string, at: string): Promise<Map<string, PriorMemory>> {
  const out = new Map<string, PriorMemory>();
  const unsettled: string[] = [];
  for (const r of await memoryHeadsOfSubject(tx, workspaceId, subject)) {
    const s = r.summary as { v?: number; from?: string | null; memory?: { status: ChangeSide['status']; current: Array<{ value: unknown }>; conflict: Array<{ value: unknown }> } } | null;
    const base = { digest: r.digest, key: r.key, predicate: r.predicate, scope: r.scope, owner: r.owner };
    if (s?.v === 1 && s.memory && (s.from === null || s.from === undefined || compareInstants(s.from, at) <= 0)) {
      const m = s.memory;
      out.set(r.id, { ...base, side: { status: m.status, values: (m.status === 'conflicted' ? m.conflict : m.current).map((x) => x.value) } });
    } else {
      out.set(r.id, { ...base, side: { status: 'empty', values: [] } });
      unsettled.push(r.id);
    }
  }
  for (const [id, row] of await memoriesByIds(tx, workspaceId, unsettled)) out.get(id)!.side = sideAt(row.timeline, at);
  return out;
}

/** A memory the compile wrote: a row when its view changed. */
export function noteWritten(log: ChangeLog, before: MemoryRow | undefined, after: Timeline, digest: string): void {
  const id = after.memory_id;
  const prior = before ? { digest: before.digest, side: sideAt(before.timeline, log.at) } : (log.prior?.get(id) ?? null);
  if (prior && prior.digest === digest) return;
  record(log, id, after.key, after.fact_key.predicate, after.fact_key.scope, after.fact_key.owner, prior?.side ?? null, sideAt(after, log.at));
}

/** A memory the compile deleted (linked into another). */
export function noteRemoved(log: ChangeLog, before: MemoryRow): void {
  const t = before.timeline;
  record(log, before.id, t.key, t.fact_key.predicate, t.fact_key.scope, t.fact_key.owner, sideAt(t, log.at), null);
}

/** A rebuild's end: the memories it did not write again are gone. */
export function noteRebuildRemovals(log: ChangeLog, written: ReadonlySet<string>): void {
  for (const [id, p] of log.prior ?? []) if (!written.has(id)) record(log, id, p.key, p.predicate, p.scope, p.owner, p.side, null);
}

function record(log: ChangeLog, id: string, key: string, predicate: string, scope: 'workspace' | 'personal', owner: string | null, before: ChangeSide | null, after: ChangeSide | null): void {
  const kind = classifySides(before, after);
  if (kind === 'history') return;
  if (log.erasure) {
    // The erased user's own memories go with them, unannounced: a row would name them.
    if (owner !== null && owner === log.erasure.user) return;
    // A memory gone with the erasure held claims of the erased user only, so its key and predicate
    // are that user's words: its row names it by id alone. One that stays is stated by others.
    const gone = after === null;
    log.rows.push({ memory_id: id, subject: log.subject, key: gone ? '' : key, predicate: gone ? '' : predicate, scope, owner, change: 'erased', before: null, after, episode_id: null });
    return;
  }
  log.rows.push({ memory_id: id, subject: log.subject, key, predicate, scope, owner, change: kind, before, after, episode_id: log.causes.get(id) ?? null });
}
