import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';

/** One lock per workspace, apart from the subjects' (another hash domain). */
const gateKey = (workspaceId: string) => `hashtextextended(${sqlLiteral(JSON.stringify(['writes', workspaceId]))}, 7236004)`;

/**
 * Closes a workspace to writers until the transaction ends: an erasure holds it, so that no
 * write is under way while it reads what to erase and none starts until its tombstones and
 * revoked keys are committed. Waits for the writers under way to commit first.
 */
export async function closeWrites(tx: Sql, workspaceId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${gateKey(workspaceId)})`);
}

/**
 * What a writer sends with BEGIN: the shared side of the same lock. Writers never wait on each
 * other through it, only on an erasure; a statement after it reads what that erasure committed.
 */
export function writesOpenStatement(workspaceId: string): string {
  return `SELECT pg_advisory_xact_lock_shared(${gateKey(workspaceId)})`;
}
