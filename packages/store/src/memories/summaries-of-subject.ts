import type { Sql } from '../db.js';

/** Each memory's stored summary, for verify to hold against its timeline. */
export async function summariesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, unknown>> {
  const { rows } = await sql.query<{ id: string; summary: unknown }>('SELECT id, summary FROM memories WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  return new Map(rows.map((r) => [r.id, r.summary]));
}
