import { knownAt, NotFoundError, ValidationError, policyFor, timelineEtag, type Claim, type LineageVersion, type PolicySet, type Timeline } from '@canon/core';
import { claimsOfMemories, claimsOfSubject, compiledSnapshotVersions, type Pool, type Sql } from '@canon/store';
import type { Principal } from './principal.js';
import { loadPolicySet } from './policies.js';
import { memoryDetail, parseInstant, subjectMemories, summarize, visibleTo, type MemoryDetail, type MemoryPage, type MemorySummary } from './recall.js';
import { withWorkspace } from './scope.js';

/** `as_of` is valid time (a view of the timeline); `known_at` transaction time (a refold). */
export interface RecallParams {
  as_of?: string | undefined;
  known_at?: string | undefined;
}

/** Recall of a subject reads a page at a time: a subject may hold thousands of memories. */
export interface SubjectRecallParams extends RecallParams {
  /** At most this many memories (1–1000, default 100). */
  limit?: number | undefined;
  /** The `next` of the page before: the key after which this page starts. */
  after?: string | undefined;
}

export const RECALL_PAGE = { default: 100, max: 1000 } as const;

function memoryPage(params: SubjectRecallParams): MemoryPage {
  const limit = params.limit ?? RECALL_PAGE.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > RECALL_PAGE.max) throw new ValidationError(`limit: an integer from 1 to ${RECALL_PAGE.max}: ${limit}`);
  return { after: params.after === undefined || params.after === '' ? null : params.after, limit };
}

/**
 * Parses both instants. With only `known_at`, `as_of` defaults to it: "what would recall have
 * answered at T" — the belief at T about T. With neither, now.
 */
export function recallInstants(params: RecallParams, now: string): { at: string; known_at: string | null } {
  const known = params.known_at === undefined || params.known_at === '' ? null : parseInstant('known_at', params.known_at, now);
  return { at: parseInstant('as_of', params.as_of, known ?? now), known_at: known };
}

/**
 * Refolds one memory from the claims ingested by `transactionTime` (design §7: heavier,
 * O(history)). Null when nothing of it was known yet. Today's policies apply: the question is
 * what the log held then, read under the rules in force now.
 */
function refold(claims: readonly Claim[], versions: readonly LineageVersion[], transactionTime: string, set: PolicySet): Timeline | null {
  const first = claims[0];
  if (!first) return null;
  const lineages = new Set(claims.map((c) => c.lineage));
  return knownAt(claims, versions.filter((v) => lineages.has(v.lineage)), transactionTime, policyFor(set, first.predicate));
}

/** A page of the memories of a subject at `as_of`, as known at `known_at` (or as compiled now). */
export async function recallSubject(
  pool: Pool,
  principal: Principal,
  subject: string,
  params: SubjectRecallParams,
): Promise<SubjectRecall> {
  const { at, known_at } = recallInstants(params, new Date().toISOString());
  const page = memoryPage(params);
  return withWorkspace(pool, principal, async (tx) => {
    if (known_at === null) return { subject, at, known_at, ...(await subjectMemories(tx, principal, subject, at, page)) };
    // Transaction time refolds the whole subject (design §7: O(history)); the page is cut after.
    const { set } = await loadPolicySet(tx, principal.workspace_id);
    const byMemory = await claimsOfSubject(tx, principal.workspace_id, subject);
    const versions = await compiledSnapshotVersions(tx, principal.workspace_id, subject);
    const memories: MemorySummary[] = [];
    for (const claims of byMemory.values()) {
      const timeline = refold(claims, versions, known_at, set);
      if (!timeline || !visibleTo(principal, timeline)) continue;
      if (page.after !== null && timeline.key <= page.after) continue;
      memories.push(summarize({ id: timeline.memory_id, subject, etag: timelineEtag(timeline) }, timeline, at));
    }
    memories.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const more = memories.length > page.limit;
    if (more) memories.length = page.limit;
    return { subject, at, known_at, memories, next: more ? memories[memories.length - 1]!.key : null };
  });
}

export interface SubjectRecall {
  subject: string;
  at: string;
  known_at: string | null;
  memories: MemorySummary[];
  /** Pass as `after` for the next page; null on the last. */
  next: string | null;
}

/** One memory at `as_of`, as known at `known_at`: 404 when it was not known yet. */
export async function recallMemory(pool: Pool, principal: Principal, id: string, params: RecallParams): Promise<MemoryDetail & { known_at: string | null }> {
  const { at, known_at } = recallInstants(params, new Date().toISOString());
  return withWorkspace(pool, principal, async (tx) => {
    if (known_at === null) return { ...(await memoryDetail(tx, principal, id, at)), known_at };
    const claims = (await claimsOfMemories(tx, principal.workspace_id, [id])).get(id) ?? [];
    const subject = claims[0]?.subject;
    const { set } = await loadPolicySet(tx, principal.workspace_id);
    const versions = subject === undefined ? [] : await compiledSnapshotVersions(tx, principal.workspace_id, subject);
    const timeline = refold(claims, versions, known_at, set);
    if (!timeline || !visibleTo(principal, timeline)) throw new NotFoundError(`no memory ${id} was known at ${known_at}`);
    const etag = timelineEtag(timeline);
    return {
      id,
      subject: subject!,
      revision: timeline.revision,
      etag,
      status: timeline.status_hint,
      timeline,
      view: summarize({ id, subject: subject!, etag }, timeline, at),
      known_at,
    };
  });
}

/** For callers that already hold a transaction (proposals answer with the memory after). */
export async function currentMemory(sql: Sql, principal: Principal, id: string): Promise<MemoryDetail> {
  return memoryDetail(sql, principal, id, new Date().toISOString());
}
