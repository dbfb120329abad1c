import type { Sql } from '../db.js';
import type { erasures } from '../schema.js';

/**
 * A row of `erasures` as written (the database stamps `erased_at`). `target_hash` is a hash of
 * the target: the audit says who erased how much and when, never what.
 */
export type ErasureRow = Omit<typeof erasures.$inferInsert, 'erased_at' | 'target_kind'> & { target_kind: 'subject' | 'user' };

export async function insertErasure(sql: Sql, row: ErasureRow): Promise<{ erased_at: string }> {
  const { rows } = await sql.query<{ erased_at: string }>(
    `INSERT INTO erasures (workspace_id, id, target_kind, target_hash, actor_key_id, actor_role, episodes, memories)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING erased_at`,
    [row.workspace_id, row.id, row.target_kind, row.target_hash, row.actor_key_id, row.actor_role, row.episodes, row.memories],
  );
  return rows[0]!;
}
