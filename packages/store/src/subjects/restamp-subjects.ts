import type { Sql } from '../db.js';

/**
 * Stamps with the policies' new fingerprint every subject of the workspace compiled under the
 * old one by this compiler, but those named: a policy change no subject's memories depend on
 * leaves their state as it was, and a subject left with the old stamp was rebuilt by its next
 * compile, which then counted every memory as created — a CI's no-op recompile failed after a
 * harmless policy edit. Returns how many were stamped.
 */
export async function restampSubjects(sql: Sql, workspaceId: string, from: string, to: string, compilerVersion: string, except: readonly string[]): Promise<number> {
  const { rowCount } = await sql.query(
    `UPDATE subjects SET policy_fingerprint = $3
     WHERE workspace_id = $1 AND policy_fingerprint = $2 AND compiler_version = $4 AND NOT (subject = ANY($5::text[]))`,
    [workspaceId, from, to, compilerVersion, except],
  );
  return rowCount ?? 0;
}
