import type { Sql } from '../db.js';

/**
 * The job queue's rows that name an erased subject — a compile's data, its output, its
 * singleton key, a dead letter, a many-subject job and its result — deleted in the erasure's
 * transaction, with the progress rows of those jobs (design §8). pg-boss's tables are its own,
 * outside row-level security, and granted to canon_app only once a runtime that runs the queue
 * has started (`grantQueueAccess`), which an erasure from a runtime without it cannot count on:
 * the statement runs as the connecting role for its duration, and the caller's role is restored
 * after it. A subject is
 * matched as a whole JSON string (or inside the JSON of a singleton key), so "a" never matches
 * "ab". Returns the ids of the jobs deleted, which answer 404 from then on.
 */
export async function deleteJobsNaming(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows: role } = await sql.query<{ r: string }>(`SELECT current_setting('role') AS r`);
  await sql.query(`SELECT set_config('role', 'none', true)`);
  let ids: string[];
  try {
    const { rows: schema } = await sql.query<{ ok: boolean }>(`SELECT to_regclass('pgboss.job') IS NOT NULL AS ok`);
    if (!schema[0]?.ok) return [];
    const { rows } = await sql.query<{ id: string }>(
      `DELETE FROM pgboss.job j
       WHERE coalesce(j.data->>'workspace_id', $1) = $1
         AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS n(s)
                     WHERE strpos(j.data::text, to_jsonb(n.s)::text) > 0
                        OR strpos(coalesce(j.output::text, ''), to_jsonb(n.s)::text) > 0
                        OR strpos(coalesce(j.singleton_key, ''), to_jsonb(n.s)::text) > 0)
       RETURNING j.id::text AS id`,
      [workspaceId, subjects],
    );
    ids = rows.map((r) => r.id);
  } finally {
    await sql.query(`SELECT set_config('role', $1, true)`, [role[0]?.r ?? 'none']);
  }
  if (ids.length > 0) await sql.query('DELETE FROM job_progress WHERE workspace_id = $1 AND job_id = ANY($2::uuid[])', [workspaceId, ids]);
  return ids;
}
