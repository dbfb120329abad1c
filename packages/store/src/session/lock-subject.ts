import type { Sql } from '../db.js';

/**
 * A subject's transaction-level advisory lock: compiles, rebuilds, conditional writes and erasure
 * of one subject take turns. Two int4 halves of a hash of (workspace, subject); released at commit.
 */
export async function lockSubject(tx: Sql, workspaceId: string, subject: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7236003))', [JSON.stringify([workspaceId, subject])]);
}
