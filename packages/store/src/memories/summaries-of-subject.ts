import type { Sql } from '../db.js';

/** Each memory's stored summary and side, for verify to hold against its timeline. */
export async function summariesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, { summary: unknown; side: unknown }>> {
  const { rows } = await sql.query<{ id: string; summary: unknown; side: unknown }>('SELECT id, summary, side FROM memories WHERE workspace_id = $1 AND subject = $2', [
    workspaceId,
    subject,
  ]);
  return new Map(rows.map((r) => [r.id, { summary: r.summary, side: r.side }]));
}
