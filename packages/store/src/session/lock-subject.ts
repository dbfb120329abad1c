import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';
import { policiesSharedLock } from './lock-policies.js';

/** The key both forms of the lock hash: one text per (workspace, subject). */
const lockText = (workspaceId: string, subject: string) => JSON.stringify([workspaceId, subject]);

/**
 * A subject's transaction-level advisory lock: compiles, rebuilds, conditional writes and erasure
 * of one subject take turns. Two int4 halves of a hash of (workspace, subject); released at commit.
 * With it, the shared side of the workspace's policies lock (`lockPolicies`): whatever is done
 * under a subject's lock reads the policies after it, and a change of them waits for it.
 */
export async function lockSubject(tx: Sql, workspaceId: string, subject: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7236003)), ${policiesSharedLock(workspaceId)}`, [lockText(workspaceId, subject)]);
}

/**
 * The same lock as a statement with its key written as a literal, for `beginInScope` to send with
 * BEGIN and the scope in one round trip.
 */
export function lockSubjectStatement(workspaceId: string, subject: string): string {
  return `SELECT pg_advisory_xact_lock(hashtextextended(${sqlLiteral(lockText(workspaceId, subject))}, 7236003)), ${policiesSharedLock(workspaceId)}`;
}
