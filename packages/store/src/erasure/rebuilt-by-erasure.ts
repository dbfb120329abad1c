import type { Sql } from '../db.js';

/** Whether an erasure touched the subject of this content-free hash (`insertErasureRebuiltSubjects`). */
export async function rebuiltByErasure(sql: Sql, workspaceId: string, subjectHash: string): Promise<boolean> {
  const { rows } = await sql.query<{ hit: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM erasure_rebuilt_subjects WHERE workspace_id = $1 AND subject_hash = $2) AS hit`,
    [workspaceId, subjectHash],
  );
  return rows[0]!.hit;
}
