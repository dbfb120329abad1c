import type { Claim } from '@canon/core';
import type { Sql } from '../db.js';

/**
 * Claims per statement. Each slice travels as one JSON array: node-postgres spells a `json[]`
 * parameter out as an array literal, escaping every claim's JSON again, which cost more than the
 * insert; and an unbounded batch would build one string the size of a subject's history. Each
 * claim is stored as its text (a `json` column, migration 0028): the json functions split the
 * slice and read the six key columns, and nothing is parsed into jsonb.
 */
const INSERT_SLICE = 500;

export async function insertClaims(sql: Sql, claims: readonly Claim[]): Promise<void> {
  for (let i = 0; i < claims.length; i += INSERT_SLICE) {
    await sql.query(
      `INSERT INTO claims (workspace_id, episode_id, idx, subject, memory_id, lineage, claim)
       SELECT r.workspace_id, r.episode_id, r.index, r.subject, r.memory_id, r.lineage, c
       FROM json_array_elements($1::json) AS c,
            json_to_record(c) AS r(workspace_id text, episode_id uuid, index int, subject text, memory_id text, lineage text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(claims.slice(i, i + INSERT_SLICE))],
    );
  }
}
