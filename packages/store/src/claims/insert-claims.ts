import type { Claim } from '@canon/core';
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
