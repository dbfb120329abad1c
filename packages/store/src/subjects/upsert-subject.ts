import type { Sql } from '../db.js';
import type { SubjectRow } from './rows.js';

export async function upsertSubject(sql: Sql, row: SubjectRow): Promise<void> {
  await sql.query(
    `INSERT INTO subjects (workspace_id, subject, state_hash, compiler_version, policy_fingerprint, memories, open_conflicts, personal_sums)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (workspace_id, subject) DO UPDATE SET state_hash = EXCLUDED.state_hash,
       compiler_version = EXCLUDED.compiler_version, policy_fingerprint = EXCLUDED.policy_fingerprint,
       memories = EXCLUDED.memories, open_conflicts = EXCLUDED.open_conflicts, personal_sums = EXCLUDED.personal_sums`,
    [row.workspace_id, row.subject, row.state_hash, row.compiler_version, row.policy_fingerprint, row.memories, row.open_conflicts, row.personal_sums === null ? null : JSON.stringify(row.personal_sums)],
  );
}
