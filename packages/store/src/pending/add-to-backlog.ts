import type { Sql } from '../db.js';

/**
 * Adds each subject's newly marked episodes to its backlog (`pending_backlog`, migration 0043) and
 * answers those whose backlog is now at least `threshold`, in the subjects' order. Inside the
 * workspace's transaction only (`withWorkspace`), and best sent as its last statement: the
 * subjects' rows stay locked until it commits, and another ingest of the same subjects waits
 * there for them.
 */
export async function addToBacklog(sql: Sql, workspaceId: string, added: ReadonlyMap<string, number>, threshold: number): Promise<string[]> {
  if (added.size === 0) return [];
  const subjects = [...added.keys()];
  const { rows } = await sql.query<{ subject: string }>(`SELECT s AS subject FROM canon_backlog_add($1, $2::text[], $3::integer[], $4) AS s`, [
    workspaceId,
    subjects,
    subjects.map((s) => added.get(s)!),
    threshold,
  ]);
  return rows.map((r) => r.subject);
}
