import { afterAll, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  contentHash,
  DEFAULT_POLICY_SET,
  EpisodeInput,
  extract,
  fold,
  policyFor,
  timelineDigest,
  timelineEtagAndJson,
  toEnvelope,
  type Actor,
  type Claim,
  type Timeline,
} from '@canon/core';
import {
  appendEpisodes,
  createPool,
  ensureWorkspace,
  enterScope,
  episodesByIds,
  inTransaction,
  type LoggedEpisode,
  type MemoryWrite,
  type NewEpisode,
  type Pool,
  type PoolClient,
  type Sql,
} from '@canon/store';
import type { z } from 'zod';
import { createTestDatabase } from './database.js';

// What the store's integration tests (`packages/store/src/<concept>/<concept>.int.test.ts`) build
// their rows from: real episodes, the claims core extracts from them and the timelines it folds,
// so each operation is tested on the rows a compile would have written.

/** A database cloned from the migrated template, and a pool on it; `close` ends both. */
async function storeDatabase(): Promise<{ pool: Pool; close(): Promise<void> }> {
  const db = await createTestDatabase();
  const pool = createPool(db.url, { max: 4 });
  return {
    pool,
    async close() {
      await pool.end();
      await db.drop();
    },
  };
}

/**
 * One migrated database for a test file: made before its tests, dropped after them. `use` gets its
 * pool once it is ready (and may seed it) before the first test runs.
 */
export function useStoreDatabase(use: (pool: Pool) => void | Promise<void>): void {
  let db: Awaited<ReturnType<typeof storeDatabase>> | undefined;
  beforeAll(async () => {
    db = await storeDatabase();
    await use(db.pool);
  });
  afterAll(() => db?.close());
}

const OWNER: Actor = { role: 'owner', user: null };

/** An episode as a client posts it (defaults filled in by the schema). */
export type EpisodeFixture = z.input<typeof EpisodeInput>;

/** An episode as ingest hands it to `appendEpisodes`: validated, enveloped and hashed. */
export function newEpisode(workspaceId: string, input: EpisodeFixture, actor: Actor = OWNER): NewEpisode {
  const envelope = toEnvelope(EpisodeInput.parse(input), workspaceId, actor);
  return { id: randomUUID(), envelope, content_hash: contentHash(envelope), actor_key: null };
}

/**
 * Appends episodes in one batch (creating the workspace first) and reads them back as logged, in
 * the order given (the log's order is the batch's (source, key) order).
 */
export async function logEpisodes(sql: Sql, workspaceId: string, inputs: readonly EpisodeFixture[], actor: Actor = OWNER): Promise<LoggedEpisode[]> {
  await ensureWorkspace(sql, workspaceId);
  const batch = inputs.map((i) => newEpisode(workspaceId, i, actor));
  await appendEpisodes(sql, workspaceId, batch);
  const logged = new Map((await episodesByIds(sql, workspaceId, batch.map((e) => e.id))).map((e) => [e.id, e]));
  return batch.map((e) => logged.get(e.id)!);
}

/**
 * Marks episode ids as waiting for a compile of their subject, whether or not the log holds them:
 * the backlog's own operations are tested on rows alone. (Canon itself writes a pending row only
 * in the statement that appends its episode, `appendEpisodes` with `pending`.) Each row carries a
 * batch count of one, so a backlog's sum counts every row.
 */
export async function markPending(
  sql: Sql,
  workspaceId: string,
  rows: ReadonlyArray<{ subject: string; episode_id: string; scope?: 'workspace' | 'personal'; owner?: string | null }>,
): Promise<void> {
  await sql.query(
    `INSERT INTO pending (workspace_id, subject, episode_id, scope, owner, batch_count)
     SELECT $1, u.subject, u.episode_id, u.scope, u.owner, 1 FROM unnest($2::text[], $3::uuid[], $4::text[], $5::text[]) AS u(subject, episode_id, scope, owner)`,
    [workspaceId, rows.map((r) => r.subject), rows.map((r) => r.episode_id), rows.map((r) => r.scope ?? 'workspace'), rows.map((r) => r.owner ?? null)],
  );
}

/** A structured claim's body: `{claims: [{predicate, value}]}`. */
export const claimBody = (predicate: string, value: unknown, more: Record<string, unknown> = {}) => ({ claims: [{ predicate, value, ...more }] });

/** What a compile would write for these episodes: their claims, and one memory per fact key they touch. */
export function compiledFrom(episodes: readonly LoggedEpisode[]): { claims: Claim[]; memories: MemoryWrite[] } {
  const claims = episodes.flatMap((e) => extract(e, DEFAULT_POLICY_SET));
  const byMemory = new Map<string, Claim[]>();
  for (const c of claims) byMemory.set(c.memory_id, [...(byMemory.get(c.memory_id) ?? []), c]);
  const memories = [...byMemory.values()].map((cs) => memoryWrite(fold(cs, policyFor(DEFAULT_POLICY_SET, cs[0]!.predicate), []), cs[0]!.subject));
  return { claims, memories };
}

/** A timeline as the memories table stores it, with a summary of the shape recall reads. */
export function memoryWrite(timeline: Timeline, subject: string): MemoryWrite {
  const { etag, json } = timelineEtagAndJson(timeline);
  const inForce = timeline.values.filter((v) => v.status === 'in_force').map((v) => ({ value: v.value, evidence: v.evidence }));
  const disputed = timeline.values.filter((v) => v.status === 'disputed').map((v) => ({ value: v.value, evidence: v.evidence }));
  const summary = {
    v: 1,
    from: null,
    memory: {
      id: timeline.memory_id,
      status: timeline.status_hint,
      predicate: timeline.fact_key.predicate,
      qualifiers: timeline.fact_key.qualifiers,
      current: inForce,
      conflict: disputed,
    },
  };
  // The side is the summary's values without their evidence, as the compile writes it.
  const values = (list: Array<{ value: unknown }>) => list.map((c) => ({ value: c.value }));
  const side = { ...summary, memory: { status: summary.memory.status, predicate: summary.memory.predicate, qualifiers: summary.memory.qualifiers, current: values(inForce), conflict: values(disputed) } };
  return { timeline, json, subject, etag, digest: timelineDigest(timeline), summary, side, told_as_change: false, document_lineages: [], checkpoint: null };
}

/** Runs fn in a transaction confined to a workspace, as the runtime's `withWorkspace` does. */
export function inWorkspace<T>(pool: Pool, workspaceId: string, fn: (tx: PoolClient) => Promise<T>, user: string | null = null): Promise<T> {
  return inTransaction(pool, async (tx) => {
    await enterScope(tx, { workspace_id: workspaceId, user, all_users: user === null });
    return fn(tx);
  });
}
