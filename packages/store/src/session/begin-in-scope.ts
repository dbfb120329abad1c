import type { Sql } from '../db.js';
import { scopeStatement, type SessionScope } from './enter-scope.js';

/**
 * Opens a transaction already confined to a scope: BEGIN and `enterScope`'s statement in one round
 * trip, and `then` (a statement of literals, such as `lockSubjectStatement`) in the same one.
 */
export async function beginInScope(tx: Sql, scope: SessionScope, then?: string): Promise<void> {
  await tx.query(`BEGIN; ${scopeStatement(scope)}${then ? `; ${then}` : ''}`);
}
