import type { Sql } from '../db.js';

/** Removes every derived row of a subject (rebuild starts from nothing but the log). */
export async function deleteDerivedOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<void> {
  const ids = `SELECT id FROM memories WHERE workspace_id = $1 AND subject = $2`;
  await sql.query(`DELETE FROM evidence WHERE workspace_id = $1 AND memory_id IN (${ids})`, [workspaceId, subject]);
  await sql.query(`DELETE FROM claim_decisions WHERE workspace_id = $1 AND memory_id IN (${ids})`, [workspaceId, subject]);
  await sql.query(`DELETE FROM memory_blocks WHERE workspace_id = $1 AND memory_id IN (${ids})`, [workspaceId, subject]);
  await sql.query('DELETE FROM memory_values WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM memories WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM claims WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM episode_markers WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM subjects WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
}
