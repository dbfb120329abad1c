import { compareInstants, knownAt, NotFoundError, ValidationError, policyFor, timelineEtag, type Claim, type LineageVersion, type PolicySet, type Timeline } from '@canon/core';
import { claimsOfMemories, claimsOfSubject, compiledSnapshotVersions, linkEpisodesOfSubject, type Pool, type Sql } from '@canon/store';
import { foldGroup, linksOfEpisodes, topStandingsOf, type SubjectLinks } from '../links/linked-fold.js';
import type { Principal } from '../auth/principal.js';
import { loadPolicySet } from '../writes/policies.js';
import { memoryDetail, parseInstant, subjectMemories, summarize, visibleTo, type MemoryDetail, type MemoryPage, type MemorySummary } from './recall.js';
import { withWorkspace } from '../auth/scope.js';

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

/** What was known of a subject at a transaction time: its claims, lineage versions and links. */
interface KnownInputs {
  byMemory: ReadonlyMap<string, readonly Claim[]>;
  versions: readonly LineageVersion[];
  links: SubjectLinks;
  set: PolicySet;
  transactionTime: string;
}

async function knownInputs(tx: Sql, workspaceId: string, subject: string, transactionTime: string, byMemory?: Map<string, Claim[]>): Promise<KnownInputs> {
  const { set } = await loadPolicySet(tx, workspaceId);
  const known = (e: { ingested_at: string }) => compareInstants(e.ingested_at, transactionTime) <= 0;
  const claims = byMemory ?? (await claimsOfSubject(tx, workspaceId, subject));
  return {
    byMemory: claims,
    versions: await compiledSnapshotVersions(tx, workspaceId, subject),
    // A link stated after the transaction time had not yet made two keys one memory.
    links: linksOfEpisodes(
      workspaceId,
      (await linkEpisodesOfSubject(tx, workspaceId, subject)).filter(known),
      set,
      topStandingsOf([...claims].map(([id, cs]) => [id, cs.filter(known)] as const)),
    ),
    set,
    transactionTime,
  };
}

/**
 * The memory a key was part of at the transaction time: its own timeline, or its linked group's
 * folded on the canonical key as a compile then would have (`foldGroup`, from known claims only).
 */
function refoldAt(id: string, k: KnownInputs): Timeline | null {
  const group = k.links.groupOfId.get(id);
  if (!group) return refold(k.byMemory.get(id) ?? [], k.versions, k.transactionTime, k.set);
  const known = (c: { ingested_at: string }) => compareInstants(c.ingested_at, k.transactionTime) <= 0;
  const claims = new Map(group.ids.map((m) => [m, (k.byMemory.get(m) ?? []).filter(known)] as const));
  return foldGroup(group, claims, k.set, k.versions.filter(known));
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
  if (known_at === null) return { subject, as_of: at, known_at, ...(await subjectMemories(pool, principal, subject, at, page)) };
  return withWorkspace(pool, principal, async (tx) => {
    // Transaction time refolds the whole subject (design §7: O(history)); the page is cut after.
    const k = await knownInputs(tx, principal.workspace_id, subject, known_at);
    const memories: MemorySummary[] = [];
    const folded = new Set<string>();
    for (const id of k.byMemory.keys()) {
      const group = k.links.groupOfId.get(id);
      if (group && folded.has(group.canonicalId)) continue;
      if (group) folded.add(group.canonicalId);
      const timeline = refoldAt(id, k);
      if (!timeline || !visibleTo(principal, timeline)) continue;
      if (page.after !== null && timeline.key <= page.after) continue;
      memories.push(summarize({ id: timeline.memory_id, subject, etag: timelineEtag(timeline) }, timeline, at));
    }
    memories.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const more = memories.length > page.limit;
    if (more) memories.length = page.limit;
    return { subject, as_of: at, known_at, memories, next: more ? memories[memories.length - 1]!.key : null };
  });
}

export interface SubjectRecall {
  subject: string;
  /** The valid-time instant the memories are seen at: the `as_of` asked, or now. */
  as_of: string;
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
    const own = (await claimsOfMemories(tx, principal.workspace_id, [id])).get(id) ?? [];
    const subject = own[0]?.subject;
    let timeline: Timeline | null = null;
    if (subject !== undefined) {
      const k = await knownInputs(tx, principal.workspace_id, subject, known_at, new Map([[id, own]]));
      // Linked by then: the group's memory, with the claims of every key in it.
      const group = k.links.groupOfId.get(id);
      const byMemory = group ? await claimsOfMemories(tx, principal.workspace_id, group.ids) : k.byMemory;
      timeline = refoldAt(id, { ...k, byMemory });
    }
    if (!timeline || !visibleTo(principal, timeline)) throw new NotFoundError(`no memory ${id} was known at ${known_at}`);
    const etag = timelineEtag(timeline);
    return {
      id: timeline.memory_id,
      subject: subject!,
      revision: timeline.revision,
      etag,
      status: timeline.status_hint,
      timeline,
      view: summarize({ id: timeline.memory_id, subject: subject!, etag }, timeline, at),
      known_at,
    };
  });
}

/** For callers that already hold a transaction (proposals answer with the memory after). */
export async function currentMemory(sql: Sql, principal: Principal, id: string): Promise<MemoryDetail> {
  return memoryDetail(sql, principal, id, new Date().toISOString());
}
