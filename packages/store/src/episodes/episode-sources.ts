import type { Sql } from '../db.js';

/** How many episodes each source appended about a subject (those the viewer may see), first and last occurrence. */
export async function episodeSources(
  sql: Sql,
  workspaceId: string,
  subject: string,
  user: string | null,
): Promise<Array<{ source: string; episodes: number; first_at: string; last_at: string }>> {
  const { rows } = await sql.query<{ source: string; episodes: number; first_at: Date; last_at: Date }>(
    `SELECT source, count(*)::int AS episodes, min(occurred_at) AS first_at, max(occurred_at) AS last_at
     FROM episodes WHERE workspace_id = $1 AND subject = $2 AND (scope = 'workspace' OR owner = $3) GROUP BY source ORDER BY source`,
    [workspaceId, subject, user],
  );
  return rows.map((r) => ({ source: r.source, episodes: r.episodes, first_at: new Date(r.first_at).toISOString(), last_at: new Date(r.last_at).toISOString() }));
}
