import type { Sql } from '../db.js';

/** Subjects holding memories of these predicates: the ones a policy change must rebuild. */
export async function subjectsOfPredicates(sql: Sql, workspaceId: string, predicates: readonly string[]): Promise<string[]> {
  if (predicates.length === 0) return [];
  const { rows } = await sql.query<{ subject: string }>(
    'SELECT DISTINCT subject FROM memories WHERE workspace_id = $1 AND predicate = ANY($2::text[]) ORDER BY 1',
    [workspaceId, predicates],
  );
  return rows.map((r) => r.subject);
}
