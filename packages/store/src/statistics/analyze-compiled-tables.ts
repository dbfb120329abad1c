import type { Sql } from '../db.js';

/**
 * The tables a compile reads by key and fills. Their statistics, when a workspace's rows are
 * new to them, say the workspace holds a row or so: every lookup by (workspace_id, id) is then
 * planned as a scan of the workspace's rows by its first column alone.
 */
const COMPILED_TABLES = ['episodes', 'pending', 'claims', 'memories', 'memory_blocks', 'memory_values', 'memory_value_terms', 'evidence', 'claim_decisions', 'episode_markers', 'changes'];

/**
 * Fresh statistics for those tables (`ANALYZE`, which samples a bounded number of rows whatever
 * a table's size, and takes no lock that blocks reads or writes). A table another ANALYZE or a
 * VACUUM holds is skipped; one the connecting role does not own is skipped with a warning.
 */
export async function analyzeCompiledTables(sql: Sql): Promise<void> {
  await sql.query(`ANALYZE (SKIP_LOCKED) ${COMPILED_TABLES.join(', ')}`);
}
