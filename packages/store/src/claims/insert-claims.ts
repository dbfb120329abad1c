import type { Claim } from '@canon/core';
import type { Sql } from '../db.js';
import { jsonColumn, rowsFromJsonColumns } from '../json-columns.js';
import { storedClaim } from './stored-claim.js';

/**
 * Claims per statement. Each slice travels as JSON arrays (`rowsFromJsonColumns`): the claims as
 * one, each stored as its text (a `json` column, migration 0028) without the members its row keeps
 * as columns (`storedClaim`), and beside it each key column as an array of its own, zipped back
 * into rows by position. Reading the key columns out of each claim again (`json_to_record`) lexed
 * every claim twice, a third of the insert's CPU (20,000 claims: 590 → 360 ms of PostgreSQL's
 * CPU); and an unbounded batch would build one string the size of a subject's history.
 */
const INSERT_SLICE = 500;
const CLAIM_ROWS = rowsFromJsonColumns(1, ['text', 'text', 'text', 'text', 'text', 'text', 'json']);

export async function insertClaims(sql: Sql, claims: readonly Claim[]): Promise<void> {
  for (let i = 0; i < claims.length; i += INSERT_SLICE) {
    const slice = claims.slice(i, i + INSERT_SLICE);
    const col = (f: (c: Claim) => unknown) => jsonColumn(slice, f);
    await sql.query(
      `INSERT INTO claims (workspace_id, episode_id, idx, subject, memory_id, lineage, claim)
       SELECT k.workspace_id, k.episode_id::uuid, k.idx::int, k.subject, k.memory_id, k.lineage, k.claim
       FROM ${CLAIM_ROWS} AS k(workspace_id, episode_id, idx, subject, memory_id, lineage, claim)
       ON CONFLICT DO NOTHING`,
      [
        col((c) => c.workspace_id),
        col((c) => c.episode_id),
        col((c) => c.index),
        col((c) => c.subject),
        col((c) => c.memory_id),
        col((c) => c.lineage),
        // One serialization for the slice: a text per claim, joined, took twice as long.
        jsonColumn(slice, storedClaim),
      ],
    );
  }
}
