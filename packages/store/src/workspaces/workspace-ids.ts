import type { Sql } from '../db.js';

/** Ids of every workspace (the nightly sweep walks them). */
export async function workspaceIds(tx: Sql): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM workspaces ORDER BY id');
  return rows.map((r) => r.id);
}
