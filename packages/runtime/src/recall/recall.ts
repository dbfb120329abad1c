import { compareInstants, Instant, NotFoundError, ValidationError, view, viewSettlesAt, type MemoryView, type Timeline } from '@canon/core';
import { memoriesByIds, memoryIdLinkingKey, candidateSidesStatement, recallPageStatement, type CandidateSideRow, type MemoryRecallRow, type MemoryRow, type Pool, type Sql } from '@canon/store';
import { candidateViews, shownCandidateIds, sideOf, type CandidateSide, type CandidateView } from '../links/candidate-view.js';
import type { Principal } from '../auth/principal.js';
import { readInWorkspace, withWorkspace } from '../auth/scope.js';

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
  /** `standing`: the highest standing among the claims supporting the value. */
  current: Array<{ value: unknown; standing: number; conditions: string[]; valid_from: string; valid_to: string | null; evidence_count: number }>;
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
      standing: x.standing,
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

/** A page of a subject's memories: at most `limit`, in key order after `after`. */
export interface MemoryPage {
  after: string | null;
  limit: number;
}

/**
 * What `memories.summary` holds: the summary (without candidates, which are read beside it) of
 * the view every instant from `from` on sees. `v` names this shape: a row of another shape is
 * read from its timeline, so a change here never serves a stale summary.
 */
/** What the compile stores for recall to read, valid from `from` (its timeline's last change) on. */
interface Stored<M> {
  v: 1;
  from: string | null;
  memory: M;
}
type StoredSummary = Stored<Omit<MemorySummary, 'candidates'>>;
/** What a candidate comparison needs of a memory: the words of its key and the values it holds. */
type SideMemory = Pick<StoredSummary['memory'], 'status' | 'predicate' | 'qualifiers'> & { current: SideValue[]; conflict: SideValue[] };

/** A value as a candidate compares it; `standing` is absent from a side stored before it was kept. */
type SideValue = { value: unknown; standing?: number };

/** Computed when a timeline is written; `from` is where the timeline's last change falls. */
export function storedSummary(row: Pick<MemoryRow, 'id' | 'subject' | 'etag'>, timeline: Timeline): StoredSummary {
  const from = viewSettlesAt(timeline);
  // With no values every instant sees the same empty view: any instant will do.
  const { candidates: _, ...memory } = summarize(row, timeline, from ?? '1970-01-01T00:00:00.000Z');
  return { v: 1, from, memory };
}

/**
 * What a page shows of a memory as another's candidate (`memories.side`): the summary's time
 * bounds and what names its side, its values without evidence. The same object recall otherwise
 * takes out of the summary, so a page reads the same whichever a row holds.
 */
export function storedSide(summary: StoredSummary): Stored<SideMemory> {
  const { status, predicate, qualifiers, current, conflict } = summary.memory;
  const values = (list: ReadonlyArray<SideValue>) => list.map((c) => (c.standing === undefined ? { value: c.value } : { value: c.value, standing: c.standing }));
  return { v: summary.v, from: summary.from, memory: { status, predicate, qualifiers, current: values(current), conflict: values(conflict) } };
}

/** A stored summary or side as seen at `at`: null before its timeline's last change, or if absent. */
function storedAt<M>(value: unknown, at: string): M | null {
  const s = value as Stored<M> | null;
  if (s === null || s.v !== 1) return null;
  return s.from === null || compareInstants(s.from, at) <= 0 ? s.memory : null;
}

function summarySide(m: SideMemory): CandidateSide {
  const held = m.status === 'conflicted' ? m.conflict : m.status === 'current' ? m.current : [];
  const standings = held.every((c) => typeof c.standing === 'number') ? held.map((c) => c.standing!) : null;
  return { predicate: m.predicate, qualifiers: m.qualifiers, values: held.map((c) => c.value) as CandidateSide['values'], standings };
}

function rowVisible(principal: Principal, row: Pick<MemoryRecallRow, 'scope' | 'owner'>): boolean {
  return row.scope === 'workspace' || (principal.user !== null && row.owner === principal.user);
}

/**
 * A page of the memories of a subject seen at an instant (now, or `as_of`). A memory's stored
 * summary answers for every instant after its timeline's last change; only a memory seen before
 * that (an `as_of` in its past, a value scheduled ahead) is read and viewed from its timeline.
 * A candidate off the page is read by id, so a page says of its memories what the whole would.
 * `next` is the key to pass as `after` for the page that follows, null on the last page.
 *
 * The page and its candidates' sides are each one round trip, with the key's scope in it and no
 * BEGIN or COMMIT to wait for; only memories seen before their timeline's last change take a
 * third, for their timelines. Each read is a statement of its own, as in a transaction at READ
 * COMMITTED: a memory written away between two reads is on the next read's page.
 */
export async function subjectMemories(pool: Pool, principal: Principal, subject: string, at: string, page: MemoryPage): Promise<{ memories: MemorySummary[]; next: string | null }> {
  const ws = principal.workspace_id;
  const [read] = await readInWorkspace(pool, principal, [recallPageStatement(ws, subject, { after: page.after, limit: page.limit + 1 })]);
  const rows = read!.rows as MemoryRecallRow[];
  const more = rows.length > page.limit;
  if (more) rows.length = page.limit;
  const visible = rows.filter((r) => rowVisible(principal, r));
  const onPage = new Set(visible.map((r) => r.id));
  // A candidate off the page is read from the side its partner's row keeps, when it keeps one;
  // only the rest (rows written before `partner_sides`, or naming a side from before `side`) by id.
  const kept = new Map<string, CandidateSideRow>();
  for (const r of visible) {
    for (const [id, p] of Object.entries(r.partner_sides ?? {})) if (p.side !== null && !onPage.has(id)) kept.set(id, { id, scope: p.scope, owner: p.owner, summary: p.side });
  }
  const offPage = shownCandidateIds(visible).filter((id) => !onPage.has(id) && !kept.has(id));
  const named = offPage.length === 0 ? [] : ((await readInWorkspace(pool, principal, [candidateSidesStatement(ws, offPage)]))[0]!.rows as CandidateSideRow[]);
  const others = [...kept.values(), ...named].filter((r) => rowVisible(principal, r));
  // The page's own memories answer from their summaries; a candidate off the page from its side.
  const summaries = new Map<string, StoredSummary['memory']>();
  for (const r of visible) {
    const s = storedAt<StoredSummary['memory']>(r.summary, at);
    if (s) summaries.set(r.id, s);
  }
  const stored = new Map<string, SideMemory>(summaries);
  for (const r of others) {
    const s = storedAt<SideMemory>(r.summary, at);
    if (s) stored.set(r.id, s);
  }
  const unstored = [...visible, ...others].filter((r) => !stored.has(r.id)).map((r) => r.id);
  const timelines = unstored.length === 0 ? new Map<string, MemoryRow>() : await withWorkspace(pool, principal, (tx) => memoriesByIds(tx, principal.workspace_id, unstored));
  const sides = new Map<string, CandidateSide>();
  for (const r of [...visible, ...others]) {
    const s = stored.get(r.id);
    const t = timelines.get(r.id)?.timeline;
    if (s) sides.set(r.id, summarySide(s));
    else if (t) sides.set(r.id, sideOf(t, at));
  }
  const memories: MemorySummary[] = [];
  for (const r of visible) {
    const self = sides.get(r.id);
    if (!self) continue; // written away between the two reads: it is on the next read's page
    const candidates = candidateViews(self, r.candidates, sides);
    const s = summaries.get(r.id);
    if (s) memories.push({ ...s, needs_verification: s.needs_verification || candidates.some((c) => c.kind === 'possible_contradiction'), candidates });
    else memories.push(summarize(r, timelines.get(r.id)!.timeline, at, candidates));
  }
  return { memories, next: more ? rows[rows.length - 1]!.key : null };
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

/** The row of a memory id, or of the memory a key of that id is linked into; undefined for neither. */
export async function memoryRowOf(sql: Sql, workspaceId: string, id: string): Promise<MemoryRow | undefined> {
  const row = (await memoriesByIds(sql, workspaceId, [id])).get(id);
  if (row) return row;
  const into = await memoryIdLinkingKey(sql, workspaceId, id);
  return into ? (await memoriesByIds(sql, workspaceId, [into])).get(into) : undefined;
}

/**
 * One memory by id. The id of a key linked into another memory finds that memory (its `id` is
 * then the canonical one): a caller holding either id reads the one fact.
 */
export async function memoryDetail(sql: Sql, principal: Principal, id: string, at: string): Promise<MemoryDetail> {
  const row = await memoryRowOf(sql, principal.workspace_id, id);
  // Another user's personal memory is as absent as one that does not exist.
  if (!row || !visibleTo(principal, row.timeline)) throw new NotFoundError(`no memory ${id}`);
  const others = await memoriesByIds(sql, principal.workspace_id, shownCandidateIds([row]));
  const sides = new Map([...others.values()].filter((o) => visibleTo(principal, o.timeline)).map((o) => [o.id, sideOf(o.timeline, at)] as const));
  const candidates = candidateViews(sideOf(row.timeline, at), row.candidates, sides);
  return { id: row.id, subject: row.subject, revision: row.revision, etag: row.etag, status: row.status, timeline: row.timeline, view: summarize(row, row.timeline, at, candidates) };
}
