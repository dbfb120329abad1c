import type { Sql } from '../db.js';

/** Records the subjects an erasure touched, each by its content-free hash (`subjectHash`). */
export async function insertErasureRebuiltSubjects(sql: Sql, workspaceId: string, erasureId: string, subjectHashes: readonly string[]): Promise<void> {
  if (subjectHashes.length === 0) return;
  await sql.query(
    `INSERT INTO erasure_rebuilt_subjects (workspace_id, subject_hash, erasure_id)
     SELECT $1, h, $2 FROM unnest($3::text[]) AS h
     ON CONFLICT DO NOTHING`,
    [workspaceId, erasureId, subjectHashes],
  );
}
