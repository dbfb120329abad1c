import type { Claim, LineageVersion } from '@canon/core';
import type { Sql } from '../db.js';

/**
 * Claims per statement. Each slice travels as one JSON array: node-postgres spells a `jsonb[]`
 * parameter out as an array literal, escaping every claim's JSON again, which cost more than the
 * insert; and an unbounded batch would build one string the size of a subject's history.
 */
const INSERT_SLICE = 500;

export async function insertClaims(sql: Sql, claims: readonly Claim[]): Promise<void> {
  for (let i = 0; i < claims.length; i += INSERT_SLICE) {
    await sql.query(
      `INSERT INTO claims (workspace_id, episode_id, idx, subject, memory_id, lineage, claim)
       SELECT c->>'workspace_id', (c->>'episode_id')::uuid, (c->>'index')::int, c->>'subject', c->>'memory_id', c->>'lineage', c
       FROM jsonb_array_elements($1::jsonb) AS c
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(claims.slice(i, i + INSERT_SLICE))],
    );
  }
}

/** Memories a lineage stated so far in a subject: a new version may end any of them. */
export async function memoryIdsOfLineages(sql: Sql, workspaceId: string, subject: string, lineages: readonly string[]): Promise<string[]> {
  if (lineages.length === 0) return [];
  const { rows } = await sql.query<{ memory_id: string }>(
    `SELECT DISTINCT memory_id FROM claims WHERE workspace_id = $1 AND subject = $2 AND lineage = ANY($3::text[])`,
    [workspaceId, subject, lineages],
  );
  return rows.map((r) => r.memory_id);
}

/** Every claim of these memories, grouped by memory. */
export async function claimsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, Claim[]>> {
  const out = new Map<string, Claim[]>();
  if (memoryIds.length === 0) return out;
  const { rows } = await sql.query<{ memory_id: string; claim: Claim }>(
    'SELECT memory_id, claim FROM claims WHERE workspace_id = $1 AND memory_id = ANY($2::text[])',
    [workspaceId, memoryIds],
  );
  for (const r of rows) {
    const list = out.get(r.memory_id);
    if (list) list.push(r.claim);
    else out.set(r.memory_id, [r.claim]);
  }
  return out;
}

/**
 * How many claims each of these memories has (those with none are absent): a compile checks that
 * the claims it holds are all of a key's before it folds them without reading them back.
 */
export async function claimCountsOfMemories(sql: Sql, workspaceId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
  if (memoryIds.length === 0) return new Map();
  const { rows } = await sql.query<{ memory_id: string; n: number }>(
    'SELECT memory_id, count(*)::int AS n FROM claims WHERE workspace_id = $1 AND memory_id = ANY($2::text[]) GROUP BY memory_id',
    [workspaceId, memoryIds],
  );
  return new Map(rows.map((r) => [r.memory_id, r.n]));
}

/**
 * Snapshot versions of these lineages within a subject, with the fact keys each stated. Only
 * compiled episodes (a marker) and those of the running compile count: an episode still pending
 * has no claims yet and must not look like a version that states nothing.
 */
export async function snapshotVersions(
  sql: Sql,
  workspaceId: string,
  subject: string,
  lineages: readonly string[],
  compiling: readonly string[],
): Promise<LineageVersion[]> {
  if (lineages.length === 0) return [];
  const { rows } = await sql.query<LineageVersion>(
    `SELECT e.lineage, e.source, e.idempotency_key, e.occurred_at, e.sequence, e.snapshot, e.ingested_at,
            coalesce(array_agg(DISTINCT c.claim->>'key') FILTER (WHERE c.idx IS NOT NULL), '{}') AS keys
     FROM episodes e
     LEFT JOIN claims c ON c.workspace_id = e.workspace_id AND c.episode_id = e.id
     WHERE e.workspace_id = $1 AND e.subject = $2 AND e.snapshot AND e.lineage = ANY($3::text[])
       AND (e.id = ANY($4::uuid[])
            OR EXISTS (SELECT 1 FROM episode_markers m WHERE m.workspace_id = e.workspace_id AND m.episode_id = e.id))
     GROUP BY e.workspace_id, e.id`,
    [workspaceId, subject, lineages, compiling],
  );
  return rows;
}
