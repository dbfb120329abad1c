import type { Sql } from '../db.js';

export interface ErasureRow {
  workspace_id: string;
  id: string;
  target_kind: 'subject' | 'user';
  /** A hash of the target: the audit says who erased how much and when, never what. */
  target_hash: string;
  actor_key_id: string;
  actor_role: string;
  episodes: number;
  memories: number;
}

export async function insertErasure(sql: Sql, row: ErasureRow): Promise<{ erased_at: string }> {
  const { rows } = await sql.query<{ erased_at: string }>(
    `INSERT INTO erasures (workspace_id, id, target_kind, target_hash, actor_key_id, actor_role, episodes, memories)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING erased_at`,
    [row.workspace_id, row.id, row.target_kind, row.target_hash, row.actor_key_id, row.actor_role, row.episodes, row.memories],
  );
  return rows[0]!;
}
