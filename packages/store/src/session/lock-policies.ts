import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';

/** One lock per workspace's policies (a hash domain of its own). */
const policiesKey = (workspaceId: string) => `hashtextextended(${sqlLiteral(JSON.stringify(['policies', workspaceId]))}, 7236005)`;

/**
 * Holds a workspace's policies still until the transaction ends: a change of them takes this, so
 * it waits for the compiles and writes under way — each holds the shared side from its subject's
 * lock on (`lockSubject`) — and one that starts after reads what it saved. Without it, a compile
 * that read the old policies committed its memories after the change had looked for the
 * subjects it touches, and kept them under the old policies.
 */
export async function lockPolicies(tx: Sql, workspaceId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${policiesKey(workspaceId)})`);
}

/** The shared side, as an expression a subject's lock statement takes after the subject's own. */
export function policiesSharedLock(workspaceId: string): string {
  return `pg_advisory_xact_lock_shared(${policiesKey(workspaceId)})`;
}
