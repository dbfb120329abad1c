import type { Sql } from '../db.js';
import type { CandidateRefRow } from './rows.js';

/** Replaces the candidates of these memories (one statement, arrays through unnest). */
export async function setCandidates(sql: Sql, workspaceId: string, changes: ReadonlyArray<{ id: string; candidates: readonly CandidateRefRow[] }>): Promise<void> {
  if (changes.length === 0) return;
  await sql.query(
    `UPDATE memories m SET candidates = c.candidates
       FROM unnest($2::text[], $3::jsonb[]) AS c(id, candidates)
      WHERE m.workspace_id = $1 AND m.id = c.id`,
    [workspaceId, changes.map((c) => c.id), changes.map((c) => JSON.stringify(c.candidates))],
  );
}
