import { subjectsAmong, type Pool } from '@canon/store';
import type { Principal } from '../auth/principal.js';
import { allUsersOf, withWorkspace } from '../auth/scope.js';

/**
 * The subjects among `named` that exist in the key's workspace but not for the key: another
 * user's personal subjects. A name no one wrote yet hides nothing.
 */
export async function hiddenSubjects(pool: Pool, principal: Principal, named: readonly string[]): Promise<string[]> {
  if (named.length === 0) return [];
  const ws = principal.workspace_id;
  const visible = new Set(await withWorkspace(pool, principal, (tx) => subjectsAmong(tx, ws, named)));
  const unseen = named.filter((s) => !visible.has(s));
  if (unseen.length === 0) return [];
  const all = new Set(await withWorkspace(pool, allUsersOf(ws), (tx) => subjectsAmong(tx, ws, unseen)));
  return unseen.filter((s) => all.has(s));
}
