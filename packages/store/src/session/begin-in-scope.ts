import type { Sql } from '../db.js';
import { scopeStatement, type SessionScope } from './enter-scope.js';

/** Opens a transaction already confined to a scope: BEGIN and `enterScope`'s statement in one round trip. */
export async function beginInScope(tx: Sql, scope: SessionScope): Promise<void> {
  await tx.query(`BEGIN; ${scopeStatement(scope)}`);
}
