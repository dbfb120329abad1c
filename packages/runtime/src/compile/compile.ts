import { randomUUID } from 'node:crypto';
import {
  LINK_KIND,
  COMPILER_VERSION,
  EMPTY_STATE_HASH,
  canResume,
  canonicalJson,
  extract,
  foldWithCheckpoint,
  policyFor,
  resumeFold,
  sealedBase,
  timelineHashes,
  toldAsChange,
  documentsOf,
  updateStateHash,
  viewableHead,
  type Claim,
  type FoldCheckpoint,
  type LineageVersion,
  type PolicySet,
  type Sealed,
  type Timeline,
} from '@canon/core';
import {
  claimsOfMemories,
  deleteDerivedOfSubject,
  deleteMemories,
  deletePending,
  episodeIdsOfSubject,
  episodesByIds,
  getSubject,
  personalDigestsOfSubject,
  claimCountsOfMemories,
  insertClaims,
  insertChanges,
  insertCompileRun,
  insertMarkers,
  insertMemories,
  insertPendingOfSubject,
  recountBacklogs,
  StaleWriteError,
  claimAsStored,
  subjectHasClaims,
  memoriesByIds,
  memoryIdsOfLineages,
  refreshPartnerSides,
  analyzeCompiledTables,
  writeProjections,
  type ProjectionChange,
  snapshotVersions,
  compileStart,
  compileStartOf,
  compileStartStatement,
  type CompileStart,
  updateCheckpoints,
  updateMemoriesIfRevision,
  upsertSubject,
  writeBlocks,
  type MemoryRow,
  type MemoryWrite,
  type Pool,
  type PoolClient,
} from '@canon/store';
import { loadPolicySet, policiesFromRow } from '../writes/policies.js';
import { storedSide, storedSummary } from '../recall/recall.js';
import { allUsersOf, HiddenSubjectError, readSubjectFor, withSubjectLocked, withSubjectLockedFor } from '../auth/scope.js';
import { log, subjectRef } from '../ops/log.js';
import { foldGroup, loadSubjectLinks, refreshCandidates } from '../links/linked-fold.js';
import { newChangeLog, noteClaims, noteRebuildRemovals, noteRemoved, noteWritten, priorMemories, type ChangeLog } from '../changes/record.js';
import { COUNTERS, laterParts, notePersonalDigest, partsFrom, partsOf, seenBy, sumsOf, updateSums, withParts, zeroCounters, type Counters } from './seen-by.js';

export interface CompileResult {
  subject: string;
  episodes_processed: number;
  memories_created: number;
  memories_updated: number;
  memories_superseded: number;
  conflicts_opened: number;
  tombstoned: number;
  state_hash: string;
  compiler_version: string;
}

/**
 * Episodes per compile transaction. Each chunk refolds every key it touches from all of that
 * key's claims and rewrites its timeline, so a backlog compiled in small chunks pays for the same
 * keys again and again: a 100,000-episode history in chunks of 20,000 folded and wrote each of
 * its keys five times over, growing (twice the CPU of one pass). Large chunks keep a first
 * compile of a long history near linear, at the cost of a longer transaction. Memory does not
 * grow with the chunk: episodes and claims stream through in slices, keys fold in batches.
 */
const DEFAULT_CHUNK = 100_000;

export interface CompileOptions {
  /** The pg-boss job that runs this compile, for the audit log. */
  jobId?: string | null;
  /** Episodes per transaction: bounds memory and lock time on a large backlog. */
  chunkSize?: number;
  /**
   * The rebuild of an erasure (of a user's episodes, `user`): the changes it records say that the
   * memory changed, never what it read before, and not at all for the erased user's own memories.
   */
  erasure?: { user: string | null };
  /**
   * The key of the request that names the subject: its first transaction checks, in the round
   * trip that opens it, that the key may see the subject (`withSubjectLockedFor`).
   */
  visibleTo?: { workspace_id: string; user: string | null };
  /**
   * Whose view the result is told in (`seenBy`): other users' personal episodes and memories are
   * left out of its counters and state_hash. `visibleTo` when absent; with neither, the result
   * counts every user's (a caller that answers no key: tests, the operator's log).
   */
  viewer?: { user: string | null };
}


const emptyResult = (subject: string, stateHash: string): CompileResult => ({ subject, ...zeroCounters(), state_hash: stateHash, compiler_version: COMPILER_VERSION });

function add(a: CompileResult, b: CompileResult): CompileResult {
  const sum = emptyResult(a.subject, b.state_hash);
  for (const k of COUNTERS) sum[k] = a[k] + b[k];
  return withParts(sum, laterParts(partsOf(a), partsOf(b)));
}

/** The result as the caller's viewer sees it (`seenBy`), or whole when there is none. */
function toViewer(options: CompileOptions): (result: CompileResult) => CompileResult {
  const viewer = options.viewer ?? options.visibleTo;
  return viewer ? (result) => seenBy(result, viewer.user) : (result) => result;
}

/**
 * Compiles a subject's pending episodes (design §5). Each chunk is one transaction under the
 * subject's advisory lock: claims extracted, every touched fact key refolded from the set of
 * its claims, only changed memories written (each conditional on the revision read), markers
 * written and pending rows deleted together. A subject compiled under another compiler
 * version or other policies is rebuilt instead, so its state never mixes the two.
 */
export function compileSubject(pool: Pool, workspaceId: string, subject: string, options: CompileOptions = {}): Promise<CompileResult> {
  return logged('compile', workspaceId, subject, options, () => compileInChunks(pool, workspaceId, subject, options).catch(asUnwritten(subject))).then(toViewer(options));
}

/** A subject the key may not see answers as one no one wrote: nothing compiled, nothing told. */
const asUnwritten =
  (subject: string) =>
  (err: unknown): CompileResult => {
    if (err instanceof HiddenSubjectError) return emptyResult(subject, EMPTY_STATE_HASH);
    throw err;
  };

/**
 * One log line per compile or rebuild: the subject as a digest (never its name), the counters,
 * the duration; a failure at error level with the error's class and code.
 */
async function logged(op: 'compile' | 'rebuild', workspaceId: string, subject: string, options: CompileOptions, run: () => Promise<CompileResult>): Promise<CompileResult> {
  const started = performance.now();
  const base = { event: op, workspace_id: workspaceId, subject: subjectRef(workspaceId, subject), ...(options.jobId ? { job_id: options.jobId } : {}) };
  try {
    const result = await run();
    const { subject: _name, state_hash: _hash, compiler_version: _version, ...counters } = result;
    log().info({ ...base, ...counters, duration_ms: Math.round(performance.now() - started) }, op === 'compile' ? 'compiled' : 'rebuilt');
    return result;
  } catch (err) {
    log().error({ ...base, err, duration_ms: Math.round(performance.now() - started) }, `${op} failed`);
    throw err;
  }
}

async function compileInChunks(pool: Pool, workspaceId: string, subject: string, options: CompileOptions): Promise<CompileResult> {
  const chunk = options.chunkSize ?? DEFAULT_CHUNK;
  const idle = await nothingToCompile(pool, workspaceId, subject, options.visibleTo);
  if (idle) return idle;
  let total: CompileResult | null = null;
  for (let first = true; ; first = false) {
    const step = await subjectTransaction(pool, workspaceId, subject, first ? options.visibleTo : undefined, async (tx) => {
      const start = await compileStart(tx, workspaceId, subject, chunk + 1);
      const done = await compileChunkInTransaction(tx, workspaceId, subject, policiesFromRow(start.policy_set), { ...options, chunkSize: chunk }, start);
      await recountBacklogs(tx, workspaceId, [subject]);
      return done;
    });
    total = total ? add(total, step.result) : step.result;
    if (!step.more) return afterBulk(pool, total);
  }
}

/**
 * A compile that creates at least this many memories (a backfill, a first sync, an import) has
 * the tables it filled analyzed before it returns. Until they are, a workspace new to their
 * statistics reads to the planner as a row or so, and every lookup by id in it — the next
 * compile's rows, a memory's detail, a page's candidates — scans all of the workspace's rows
 * (3,000 rows of a new workspace: 3,022 pages read for two ids, against 6). Autovacuum analyzes
 * a table only once a tenth of it has changed, which a new workspace in a large table may not
 * reach for weeks.
 */
export const ANALYZE_AFTER_CREATED = 10_000;

/** `result`, once the tables are analyzed when it created `ANALYZE_AFTER_CREATED` memories; a failure to analyze is logged, never thrown. */
async function afterBulk(pool: Pool, result: CompileResult): Promise<CompileResult> {
  if (result.memories_created < ANALYZE_AFTER_CREATED) return result;
  try {
    await analyzeCompiledTables(pool);
  } catch (err) {
    log().warn({ event: 'analyze_failed', err }, 'analyze after a large compile failed');
  }
  return result;
}

/**
 * A compile with nothing to do, told in one round trip, without the subject's lock: the answer
 * most compiles get (a CI's no-op recompile, a job absorbed by the one before it). Nothing is
 * pending and the subject is stamped with this compiler and its workspace's policies: no lock
 * would change that answer, since what is committed is all a compile would see, and an episode
 * a compile under way has taken is still pending until that compile commits. Anything else is
 * null, and the compile takes the lock and reads again.
 */
async function nothingToCompile(pool: Pool, workspaceId: string, subject: string, visibleTo: CompileOptions['visibleTo']): Promise<CompileResult | null> {
  const [read] = await readSubjectFor(pool, workspaceId, visibleTo, subject, [compileStartStatement(workspaceId, subject, 1)]);
  const start = compileStartOf(read!.rows);
  if (start.pending.length > 0) return null;
  const current = start.subject;
  if (current && (current.compiler_version !== COMPILER_VERSION || current.policy_fingerprint !== policiesFromRow(start.policy_set).fingerprint)) return null;
  // A row from before its personal sums were kept: the compile under the lock sums them once.
  if (start.personal === null) return null;
  return withParts(emptyResult(subject, current?.state_hash ?? EMPTY_STATE_HASH), partsFrom(start.personal));
}

/**
 * One chunk of a subject's compile inside the caller's transaction; the caller holds the
 * subject's lock (`lockSubject`). `more` says pending episodes are left beyond the chunk.
 */
async function compileChunkInTransaction(
  tx: PoolClient,
  workspaceId: string,
  subject: string,
  policies: { set: PolicySet; fingerprint: string },
  options: CompileOptions & { chunkSize: number },
  /**
   * The subject's stamp and up to one more than a chunk of its pending rows (`compileStart`):
   * one more tells whether another chunk follows, since a backlog of exactly one chunk would
   * otherwise open a second transaction to scan the pending rows it has just deleted.
   */
  start: Pick<CompileStart, 'subject' | 'pending' | 'personal'>,
): Promise<{ result: CompileResult; more: boolean }> {
  const current = start.subject;
  if (current && (current.compiler_version !== COMPILER_VERSION || current.policy_fingerprint !== policies.fingerprint)) {
    return { result: await rebuildInTransaction(tx, workspaceId, subject, policies, options), more: false };
  }
  const taken = start.pending;
  if (taken.length === 0) {
    const sums = start.personal ?? (await sumPersonalOnce(tx, workspaceId, subject));
    return { result: withParts(emptyResult(subject, current?.state_hash ?? EMPTY_STATE_HASH), partsFrom(sums)), more: false };
  }
  const ids = taken.slice(0, options.chunkSize);
  const result = await compileEpisodes(tx, workspaceId, subject, ids, policies, 'compile', options, newChangeLog(subject, new Date().toISOString()), current !== null);
  return { result, more: taken.length > options.chunkSize };
}

/**
 * Compiles every pending episode of a subject inside the caller's transaction (a proposal or a
 * conflict resolution appends its episode and compiles it in one transaction). The caller
 * holds the subject's lock; chunks only bound the size of each fold batch here.
 */
export async function compilePendingInTransaction(
  tx: PoolClient,
  workspaceId: string,
  subject: string,
  policies: { set: PolicySet; fingerprint: string },
  options: CompileOptions = {},
): Promise<CompileResult> {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
  let total: CompileResult | null = null;
  for (;;) {
    // The caller's policies are the ones it decided with; only the stamp and the pending rows are read here.
    const start = await compileStart(tx, workspaceId, subject, chunkSize + 1);
    const step = await compileChunkInTransaction(tx, workspaceId, subject, policies, { ...options, chunkSize }, start);
    total = total ? add(total, step.result) : step.result;
    if (!step.more) {
      await recountBacklogs(tx, workspaceId, [subject]);
      return total;
    }
  }
}

/**
 * The per-owner sums of a subject row from before they were kept (migration 0042), summed from its
 * memories and stored: once per subject, in the first compile that finds nothing else to do.
 */
async function sumPersonalOnce(tx: PoolClient, workspaceId: string, subject: string): Promise<Map<string, string>> {
  const sums = sumsOf(await personalDigestsOfSubject(tx, workspaceId, subject));
  const row = await getSubject(tx, workspaceId, subject);
  if (row) await upsertSubject(tx, { ...row, personal_sums: Object.fromEntries(sums) });
  return sums;
}

/** A transaction holding the subject's lock; with `visibleTo`, opened by checking that the key may see it. */
function subjectTransaction<T>(
  pool: Pool,
  workspaceId: string,
  subject: string,
  visibleTo: CompileOptions['visibleTo'],
  fn: (tx: PoolClient) => Promise<T>,
): Promise<T> {
  return visibleTo ? withSubjectLockedFor(pool, visibleTo, subject, fn) : withSubjectLocked(pool, allUsersOf(workspaceId), subject, fn);
}

/** Recomputes a subject from its whole log: the same state_hash as incremental compiles. */
export function rebuildSubject(pool: Pool, workspaceId: string, subject: string, options: CompileOptions = {}): Promise<CompileResult> {
  return logged('rebuild', workspaceId, subject, options, async () =>
    afterBulk(
      pool,
      await subjectTransaction(pool, workspaceId, subject, options.visibleTo, async (tx) => {
        const policies = await loadPolicySet(tx, workspaceId);
        const done = await rebuildInTransaction(tx, workspaceId, subject, policies, options);
        await recountBacklogs(tx, workspaceId, [subject]);
        return done;
      }).catch(asUnwritten(subject)),
    ),
  ).then(toViewer(options));
}

/** A rebuild inside the caller's transaction; the caller holds the subject's lock. */
export async function rebuildInTransaction(
  tx: PoolClient,
  workspaceId: string,
  subject: string,
  policies: { set: PolicySet; fingerprint: string },
  options: CompileOptions,
): Promise<CompileResult> {
  // What the subject reads now, so the rebuilt memories record a change only where they differ.
  const at = new Date().toISOString();
  const changes = newChangeLog(subject, at, await priorMemories(tx, workspaceId, subject, at), options.erasure ?? null);
  await deleteDerivedOfSubject(tx, workspaceId, subject);
  const all = await episodeIdsOfSubject(tx, workspaceId, subject);
  await insertPendingOfSubject(tx, workspaceId, subject);
  if (all.length === 0) {
    noteRebuildRemovals(changes, new Set());
    await insertChanges(tx, workspaceId, null, changes.rows);
    return emptyResult(subject, EMPTY_STATE_HASH);
  }
  return compileEpisodes(tx, workspaceId, subject, all, policies, 'rebuild', options, changes, false);
}

/**
 * Episodes read, extracted and written per statement, and memories folded and written per batch.
 * A compile streams through its chunk in these slices, so what it holds at once is one slice of
 * episodes and claims, or one batch of keys' claims — never the whole chunk — and no statement
 * carries an unbounded parameter (node-postgres spells an array parameter out as one string).
 */
const EXTRACT_SLICE = 500;
/**
 * How long extraction or the fold runs before it gives the event loop a turn: a request that
 * arrives while a large subject compiles in the same process waits at most about this long past
 * the episode or the memory in hand, and the statements the compile has queued on its connection
 * are sent, and their answers read, on the next turn rather than up to 20 ms later (the turn it
 * took before). A first compile of 100,000 episodes measured the same within noise (10.4–11.2 s
 * against 10.5–12.5 s, alternated).
 */
const YIELD_MS = 2;
const FOLD_BATCH = 200;
/**
 * Claims a compile keeps in memory after writing them, so that the fold does not read back what
 * it has just written: a first compile of a key (a 10,000-way dispute) otherwise sends its claims
 * to PostgreSQL and reads the same 11 MB of JSON straight back. Beyond this many, the compile
 * keeps none and reads every key's claims from the table, as memory must not grow with the chunk.
 */
const FRESH_CLAIMS = 20_000;
/**
 * A block of values is sealed (kept apart from its memory's row, never rewritten) only when all
 * its values ended at least this long before the compile: a claim a little late, or from a clock
 * a little ahead, still lands in the head, which any later compile rewrites.
 */
const SEAL_MARGIN_MS = 60 * 60 * 1000;

async function compileEpisodes(
  tx: PoolClient,
  workspaceId: string,
  subject: string,
  episodeIds: readonly string[],
  policies: { set: PolicySet; fingerprint: string },
  kind: 'compile' | 'rebuild',
  options: CompileOptions,
  changes: ChangeLog,
  /** The subject has a row: compiled before, so claims of it may be stored. */
  compiledBefore: boolean,
): Promise<CompileResult> {
  const started = new Date();
  const sealBefore = new Date(started.getTime() - SEAL_MARGIN_MS).toISOString();
  const t0 = performance.now();
  const result = emptyResult(subject, EMPTY_STATE_HASH);
  // What is counted of each user's personal episodes and memories, besides the totals: a key of
  // another user is told the result without them (`seenBy`).
  const counted = new Map<string, Counters>();
  // The digests removed and added of each owner's personal memories: their sums are kept as the
  // subject's state_hash is.
  const personalRemoved = new Map<string, string[]>();
  const personalAdded = new Map<string, string[]>();
  const personalCounters = (scope: string, owner: string | null): Counters | null => {
    if (scope !== 'personal' || owner === null) return null;
    let c = counted.get(owner);
    if (!c) counted.set(owner, (c = zeroCounters()));
    return c;
  };

  // Keys to refold: every key a new claim is on, and every key a lineage with a new snapshot
  // version stated before (the new version may no longer state it).
  const touched = new Set<string>();
  const snapshotLineages = new Set<string>();
  const compilingSnapshots: string[] = [];
  let linkArrived = false;
  const runId = randomUUID();
  const run = { id: runId, compiler_version: COMPILER_VERSION, policy_fingerprint: policies.fingerprint };
  let fresh: Map<string, Claim[]> | null = new Map();
  let freshCount = 0;
  // The database and this process work side by side: while a slice is extracted here, the
  // previous slice's claims are being written and the next slice's episodes read (one connection
  // runs its queries in the order they were sent, so nothing is reordered).
  const slices: string[][] = [];
  for (let i = 0; i < episodeIds.length; i += EXTRACT_SLICE) slices.push(episodeIds.slice(i, i + EXTRACT_SLICE));
  // Whether claims of the subject were stored before this compile: with none, every key's claims
  // are the ones extracted here, and the fold need not count them in the table. None after a
  // rebuild's delete; for a subject compiled before, taken as some (counting them is always
  // right), so an incremental compile sends no statement for it; otherwise asked, before any
  // claim is written.
  const hadClaims =
    kind === 'rebuild' ? Promise.resolve(false) : compiledBefore ? Promise.resolve(true) : settled(subjectHasClaims(tx, workspaceId, subject));
  const read = (k: number) => (k < slices.length ? settled(episodesByIds(tx, workspaceId, slices[k]!)) : null);
  let next = read(0);
  let writing: Promise<void> | null = null;
  const markerSlices: string[][] = [];
  for (let k = 0; next; k += 1) {
    // A failed write aborts the transaction, and the read queued behind it fails for that reason:
    // report the write's own error.
    const episodes = await next.catch(async (err: unknown) => {
      if (writing) await writing;
      throw err;
    });
    next = read(k + 1);
    const claims: Claim[] = [];
    let sliceYield = performance.now();
    for (const e of episodes) {
      if (performance.now() - sliceYield > YIELD_MS) {
        await yieldToEventLoop();
        sliceYield = performance.now();
      }
      if (e.kind === LINK_KIND) linkArrived = true;
      const own = personalCounters(e.scope, e.owner);
      if (own) own.episodes_processed += 1;
      claims.push(...extract(e, policies.set));
      if (e.snapshot) {
        snapshotLineages.add(e.lineage);
        compilingSnapshots.push(e.id);
      }
    }
    if (writing) await writing;
    noteClaims(changes, claims);
    markerSlices.push(episodes.map((e) => e.id));
    writing = settled(insertClaims(tx, claims));
    for (const c of claims) touched.add(c.memory_id);
    if (fresh) {
      freshCount += claims.length;
      if (freshCount > FRESH_CLAIMS) fresh = null;
      else
        for (const c of claims) {
          const list = fresh.get(c.memory_id);
          if (list) list.push(c);
          else fresh.set(c.memory_id, [c]);
        }
    }
    result.episodes_processed += episodes.length;
    await yieldToEventLoop();
  }
  if (writing) await writing;
  for (const id of await memoryIdsOfLineages(tx, workspaceId, subject, [...snapshotLineages])) touched.add(id);
  // Links (design §1): a new link statement may join or split any key a link names; a key in a
  // linked group is folded with the whole group.
  const links = await loadSubjectLinks(tx, workspaceId, subject, policies.set);
  // A claim on a key a link names can raise the standing that link needs (`linkState`), and so
  // take it out of force: its keys are grouped anew, as when a link arrives.
  const linksMoved = linkArrived || [...touched].some((id) => links.namedIds.has(id));
  if (linksMoved) for (const id of links.namedIds) touched.add(id);
  for (const id of [...touched]) for (const member of links.groupOfId.get(id)?.ids ?? []) touched.add(member);
  const ids = [...touched].sort();

  const removedDigests: string[] = [];
  const addedDigests: string[] = [];
  let conflictDelta = 0;
  const merged: string[] = [];
  const created: string[] = [];
  // Memories whose side changed here and that other rows name as candidates: those rows copy it.
  const sideChangedWithCandidates: string[] = [];
  // Memories told as a change for the first time here: their pairs are computed again.
  const reshaped: string[] = [];
  // As in extraction, the database and this process work side by side: while a batch folds here,
  // the previous batch's memories are being written and the next batch's claims read. Batches
  // touch disjoint memories, and the reads see every claim (all were inserted above).
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += FOLD_BATCH) batches.push(ids.slice(i, i + FOLD_BATCH));
  // A key's claims are the ones this compile extracted when the table holds no others for it (the
  // counts match: every claim extracted here was inserted, as a pending episode has none yet), in
  // the form the table would give them back; any other key's are read from the table.
  const claimsOf = async (memoryIds: string[], counts: ReadonlyMap<string, number>): Promise<Map<string, Claim[]>> => {
    const kept = fresh;
    if (!kept) return claimsOfMemories(tx, workspaceId, memoryIds);
    const out = new Map<string, Claim[]>();
    const fromTable: string[] = [];
    for (const id of memoryIds) {
      const own = kept.get(id);
      if (own && counts.get(id) === own.length) out.set(id, own.map(claimAsStored));
      else fromTable.push(id);
    }
    for (const [id, cs] of await claimsOfMemories(tx, workspaceId, fromTable)) out.set(id, cs);
    return out;
  };
  // A key may resume its fold from its checkpoint (docs/scaling.md) when this compile brings it
  // only claims after it: no link arrived and none joins it, no snapshot is among the episodes (its
  // versions could end values the checkpoint holds open), and the key has exactly the claims the
  // stored timeline folded and the ones extracted here. Its other claims are then never read.
  const mayResume = kind === 'compile' && !linksMoved && compilingSnapshots.length === 0;
  const readBatch = async (batch: string[]) => {
    const existing = await memoriesByIds(tx, workspaceId, batch, { checkpoint: kind === 'compile' });
    // A linked group folds all its keys' claims, whichever batch they fall in.
    const needed = new Set(batch);
    for (const id of batch) for (const member of links.groupOfId.get(id)?.ids ?? []) needed.add(member);
    // Only a key this compile extracted claims for can be answered from memory: count just those.
    const kept = fresh;
    const extracted = kept ? [...needed].filter((id) => kept.has(id)) : [];
    const counts =
      extracted.length === 0
        ? new Map<string, number>()
        : (await hadClaims)
          ? await claimCountsOfMemories(tx, workspaceId, extracted)
          : new Map(extracted.map((id) => [id, kept!.get(id)!.length] as const));
    const resumes = new Map<string, { checkpoint: FoldCheckpoint; added: Claim[] }>();
    if (mayResume && kept) {
      for (const id of batch) {
        const row = existing.get(id);
        const own = kept.get(id);
        if (!row?.checkpoint || !own || links.groupOfId.has(id) || counts.get(id) !== row.timeline.revision + own.length) continue;
        const added = own.map(claimAsStored);
        if (canResume(row.timeline, row.checkpoint, added, row.sealed ?? null)) resumes.set(id, { checkpoint: row.checkpoint, added });
      }
      // A snapshot version compiled earlier in a lineage of the new claims may end what they
      // state (a version dated after them): such a key folds from all its claims, as a whole
      // fold would decide (it keeps no checkpoint on a lineage with a snapshot).
      const addedLineages = [...new Set([...resumes.values()].flatMap((r) => r.added.map((c) => c.lineage)))];
      if (addedLineages.length > 0) {
        const snapshotted = new Set((await snapshotVersions(tx, workspaceId, subject, addedLineages, [])).map((v) => v.lineage));
        for (const [id, r] of resumes) if (r.added.some((c) => snapshotted.has(c.lineage))) resumes.delete(id);
      }
    }
    // A compile reads heads (`memories.sealed`); a key that folds from all its claims compares
    // against, and replaces, its whole timeline, read assembled from its blocks.
    const headsOnly = [...existing.values()].filter((r) => r.sealed && !resumes.has(r.id)).map((r) => r.id);
    const replacing = new Set(headsOnly);
    for (const [id, whole] of await memoriesByIds(tx, workspaceId, headsOnly)) {
      const head = existing.get(id)!;
      existing.set(id, { ...head, timeline: whole.timeline, sealed: null });
    }
    const claimsByMemory = await claimsOf(
      [...needed].filter((id) => !resumes.has(id)).sort(),
      counts,
    );
    const lineages = [...new Set([...claimsByMemory.values()].flatMap((cs) => cs.map((c) => c.lineage)))];
    const versions = await snapshotVersions(tx, workspaceId, subject, lineages, compilingSnapshots);
    return { batch, claimsByMemory, versions, existing, resumes, replacing };
  };
  const writeBatch = async (
    inserts: MemoryWrite[],
    updates: Array<{ write: MemoryWrite; expected: MemoryRow }>,
    writes: ProjectionChange[],
    checkpoints: Array<{ id: string; checkpoint: FoldCheckpoint | null; expected: MemoryRow }>,
  ) => {
    // The batch's memories in two statements and the checkpoints of those left as they were in a
    // third, each update conditional on the revision read.
    await insertMemories(tx, workspaceId, inserts);
    const updated = await updateMemoriesIfRevision(tx, workspaceId, updates);
    if (!updated.ok) throw new StaleWriteError(`memory ${updated.id} changed since it was read`);
    await writeBlocks(tx, workspaceId, [...inserts, ...updates.map((u) => u.write)]);
    const moved = await updateCheckpoints(tx, workspaceId, checkpoints);
    if (!moved.ok) throw new StaleWriteError(`memory ${moved.id} changed since it was read`);
    await writeProjections(tx, workspaceId, writes);
  };
  // The episodes' markers and the delete of their pending rows go with the fold's writes: while
  // extracting, the database is the one at work (inserting claims) and this process waits for it,
  // while folding, this process is, and the database has time between batches (a first compile of
  // 100k episodes: extraction waited 4.6 s of its 7 s). Every pending row the compile took goes in
  // one statement: deleted slice by slice, each delete walked all of the subject's pending rows
  // again (those deleted before it too, still in the index until the transaction ends). Nothing in
  // this transaction reads either before the compile ends (a snapshot version of the running
  // compile counts as compiled whether or not its marker is written yet).
  const bookkeeping: Array<() => Promise<void>> = [
    () => deletePending(tx, workspaceId, subject, episodeIds),
    ...markerSlices.map((ids) => () => insertMarkers(tx, workspaceId, subject, ids, run)),
  ];
  const perBatch = Math.ceil(bookkeeping.length / Math.max(1, batches.length));
  const withBookkeeping = async (write: Promise<void>) => {
    const share = bookkeeping.splice(0, perBatch);
    await write;
    for (const step of share) await step();
  };
  let reading = batches.length > 0 ? settled(readBatch(batches[0]!)) : null;
  writing = null;
  for (let k = 0; reading; k += 1) {
    // A failed write aborts the transaction and the reads queued behind it: report the write's error.
    const { batch, claimsByMemory, versions, existing, resumes, replacing } = await reading.catch(async (err: unknown) => {
      if (writing) await writing;
      throw err;
    });
    reading = k + 1 < batches.length ? settled(readBatch(batches[k + 1]!)) : null;
    const writes: ProjectionChange[] = [];
    const inserts: MemoryWrite[] = [];
    const updates: Array<{ write: MemoryWrite; expected: MemoryRow }> = [];
    const checkpoints: Array<{ id: string; checkpoint: FoldCheckpoint | null; expected: MemoryRow }> = [];
    let sinceYield = performance.now();
    for (const id of batch) {
      const group = links.groupOfId.get(id);
      if (group && group.canonicalId !== id) {
        // Linked into the group's canonical memory: its own row goes, its claims live on there.
        const gone = existing.get(id);
        if (gone) {
          noteRemoved(changes, gone);
          merged.push(id);
          removedDigests.push(gone.digest);
          notePersonalDigest(personalRemoved, gone.timeline.fact_key, gone.digest);
          if (gone.status === 'conflicted') conflictDelta -= 1;
        }
        continue;
      }
      const resume = resumes.get(id);
      const memoryClaims = resume ? resume.added : group ? group.ids.flatMap((m) => claimsByMemory.get(m) ?? []) : (claimsByMemory.get(id) ?? []);
      if (memoryClaims.length === 0) continue;
      // A compile shares the process with the HTTP server: health checks and reads must keep
      // answering while a large subject folds, and the connection's queued statements wait for
      // a turn of the event loop (`YIELD_MS`).
      if (performance.now() - sinceYield > YIELD_MS) {
        await yieldToEventLoop();
        sinceYield = performance.now();
      }
      const before = existing.get(id);
      // A resumed fold gives the head past the blocks its row had sealed; any other, the whole.
      const prefix: Sealed | null = resume ? (before!.sealed ?? null) : null;
      const folded = resume
        ? resumeFold(before!.timeline, resume.checkpoint, resume.added, policyFor(policies.set, resume.added[0]!.predicate), prefix)
        : group
          ? { timeline: foldGroup(group, claimsByMemory, policies.set, versions)!, checkpoint: null }
          : foldMemoryWithCheckpoint(memoryClaims, policies.set, versions);
      const { timeline, checkpoint } = folded;
      // The canonical JSON hashed for the etag is also the head's stored text (a json column keeps
      // it as sent), so a timeline is serialized once; the state digest is computed only for a
      // timeline that changed. Blocks that have become final are sealed here and stored apart.
      const hashes = timelineHashes(timeline, prefix, sealBefore);
      const { etag, json, digest } = hashes;
      if (before?.etag === etag) {
        // The same timeline can come with another checkpoint (a snapshot version of one of its
        // lineages now stops any resume): the row keeps the one that matches what it was folded from.
        if (kind === 'compile' && JSON.stringify(before.checkpoint ?? null) !== JSON.stringify(checkpoint)) checkpoints.push({ id, checkpoint, expected: before });
        continue;
      }
      // What the present sees of a head is what it sees of the whole timeline (`viewableHead`).
      const seen = viewableHead(timeline, prefix);
      const summary = storedSummary({ id: timeline.memory_id, subject, etag }, seen);
      const write: MemoryWrite = {
        timeline,
        json,
        sealed: hashes.sealed,
        blocks: hashes.blocks,
        replaceBlocks: replacing.has(id),
        subject,
        etag,
        digest: digest(),
        summary,
        side: storedSide(summary),
        // A resumed fold holds only the new claims: the others' cue is in the row already.
        told_as_change: (resume !== undefined && before!.told_as_change === true) || toldAsChange(memoryClaims),
        document_lineages: documentsOf(memoryClaims, resume !== undefined ? (before!.document_lineages ?? []) : []),
        checkpoint,
      };
      const own = personalCounters(timeline.fact_key.scope, timeline.fact_key.owner);
      if (!before) {
        inserts.push(write);
        result.memories_created += 1;
        if (own) own.memories_created += 1;
        created.push(id);
      } else {
        updates.push({ write, expected: before });
        // A restatement adds evidence, not a side: most writes leave the rows naming it as they are.
        if ((before.candidates?.length ?? 0) > 0 && canonicalJson(before.side ?? null) !== canonicalJson(write.side)) sideChangedWithCandidates.push(id);
        // Told as a change now (a cue on a restatement): compared by the looser rules from here on,
        // so its pairs are computed again, as a rebuild would compute them.
        if ((before.told_as_change !== undefined && before.told_as_change !== write.told_as_change) || (before.document_lineages !== undefined && before.document_lineages.join('\u0000') !== write.document_lineages.join('\u0000'))) reshaped.push(id);
        result.memories_updated += 1;
        if (own) own.memories_updated += 1;
        removedDigests.push(before.digest);
        notePersonalDigest(personalRemoved, before.timeline.fact_key, before.digest);
      }
      addedDigests.push(write.digest);
      notePersonalDigest(personalAdded, timeline.fact_key, write.digest);
      noteWritten(changes, before && { ...before, timeline: viewableHead(before.timeline, prefix) }, seen, write.digest);
      writes.push({ write, before: before?.timeline ?? null, base: sealedBase(prefix).values });
      countChanges(result, before, timeline);
      if (own) countChanges(own, before, timeline);
      conflictDelta += (timeline.status_hint === 'conflicted' ? 1 : 0) - (before?.status === 'conflicted' ? 1 : 0);
    }
    if (writing) await writing;
    writing = settled(withBookkeeping(writeBatch(inserts, updates, writes, checkpoints)));
  }
  if (writing) await writing;
  for (const step of bookkeeping.splice(0)) await step();
  fresh = null;
  await deleteMemories(tx, workspaceId, merged);
  // Candidates depend only on which memories exist, each one's key and whether it was told as a
  // change (and on `same: false` links): recomputed when one of those changed, never otherwise.
  let recandidated: string[] = [];
  if (linksMoved || kind === 'rebuild') recandidated = await refreshCandidates(tx, workspaceId, subject, links);
  else if (created.length > 0 || merged.length > 0 || reshaped.length > 0) recandidated = await refreshCandidates(tx, workspaceId, subject, links, { focus: [...created, ...reshaped], removed: merged });
  // A page shows a memory's candidates from its own row: the sides of those whose side changed,
  // and of those whose candidates changed, are copied to the rows that name them.
  if (recandidated.length > 0 || sideChangedWithCandidates.length > 0) await refreshPartnerSides(tx, workspaceId, [...new Set([...recandidated, ...sideChangedWithCandidates])]);

  const previous = await getSubject(tx, workspaceId, subject);
  result.state_hash = updateStateHash(previous?.state_hash ?? EMPTY_STATE_HASH, removedDigests, addedDigests);
  // A row from before the sums were kept is summed from the memories as they now are, once.
  const personalSums =
    previous !== null && previous.personal_sums === null
      ? sumsOf(await personalDigestsOfSubject(tx, workspaceId, subject))
      : updateSums(new Map(Object.entries(previous?.personal_sums ?? {})), personalRemoved, personalAdded);
  await upsertSubject(tx, {
    workspace_id: workspaceId,
    subject,
    state_hash: result.state_hash,
    compiler_version: COMPILER_VERSION,
    policy_fingerprint: policies.fingerprint,
    memories: (previous?.memories ?? 0) + result.memories_created - merged.length,
    open_conflicts: (previous?.open_conflicts ?? 0) + conflictDelta,
    personal_sums: Object.fromEntries(personalSums),
  });
  if (kind === 'rebuild') noteRebuildRemovals(changes, new Set(created));
  await insertChanges(tx, workspaceId, runId, changes.rows);
  await insertCompileRun(tx, {
    id: runId,
    workspace_id: workspaceId,
    subject,
    kind,
    job_id: options.jobId ?? null,
    started_at: started.toISOString(),
    duration_ms: performance.now() - t0,
    result: { ...result },
  });
  return withParts(result, partsFrom(personalSums, counted));
}

/**
 * A promise whose rejection is reported where it is awaited, not as an unhandled rejection in
 * between (a query sent ahead may fail while the loop is still extracting).
 */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** Lets pending I/O callbacks (requests, health checks, heartbeats) run between slices of work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Folds one memory from its claims: the policy of its predicate, the versions of its lineages. */
export function foldMemory(claims: readonly Claim[], policies: PolicySet, versions: readonly LineageVersion[]): Timeline {
  return foldMemoryWithCheckpoint(claims, policies, versions).timeline;
}

/** `foldMemory`, and where the next compile of the key may resume. */
export function foldMemoryWithCheckpoint(claims: readonly Claim[], policies: PolicySet, versions: readonly LineageVersion[]) {
  const first = claims[0]!;
  const lineages = new Set(claims.map((c) => c.lineage));
  return foldWithCheckpoint(claims, policyFor(policies, first.predicate), versions.filter((v) => lineages.has(v.lineage)), first.fact_key);
}

function countChanges(result: Counters, before: MemoryRow | undefined, after: Timeline): void {
  const superseded = (t: Timeline | undefined) => t?.values.filter((v) => v.status === 'superseded').length ?? 0;
  result.memories_superseded += Math.max(0, superseded(after) - superseded(before?.timeline));
  if (after.status_hint === 'conflicted' && before?.status !== 'conflicted') result.conflicts_opened += 1;
  if (after.status_hint === 'tombstoned' && before?.status !== 'tombstoned') result.tombstoned += 1;
}
