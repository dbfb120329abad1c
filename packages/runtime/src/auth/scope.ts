import { isUuid, NotFoundError, UnauthorizedError } from '@canon/core';
import {
  allUsersVisible,
  beginAsSystem,
  beginInScope,
  enterScope,
  enterSystemRole,
  inTransaction,
  keyInForceStatement,
  lockSubjectStatement,
  readInScope,
  scopeStatement,
  setAllUsersVisible,
  subjectSeenStatement,
  type Pool,
  type PoolClient,
  writesOpenStatement,
} from '@canon/store';

/**
 * Who a transaction reads and writes for. A request carries its key's user, so row-level
 * security shows it workspace rows and that user's personal rows only; the compiler and erasure
 * act on a subject as a whole (every user's personal timelines are part of its state), so they
 * run with `allUsers`.
 */
export type ScopeOf = { workspace_id: string; user: string | null } | { workspace_id: string; allUsers: true };

/** A bare workspace id is its workspace rows only: no user, so no personal row. */
const scopeOf = (scope: string | ScopeOf): ScopeOf => (typeof scope === 'string' ? { workspace_id: scope, user: null } : scope);

/**
 * Runs fn in one transaction confined to a workspace and a user: the transaction-local settings
 * `canon.workspace_id`, `canon.user` and `canon.all_users` are what the row-level security
 * policies compare every row with. Every request-scoped database access of the runtime goes
 * through here.
 */
export function withWorkspace<T>(pool: Pool, scope: string | ScopeOf, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, undefined, (tx) => beginInScope(tx, sessionScope(scopeOf(scope))));
}

/**
 * `withWorkspace` for a write of `writer`'s key that appends to the log: BEGIN, the scope, the
 * workspace's writes gate (shared: writers never wait on each other through it) and whether the
 * key is still in force, in one round trip. An erasure closes the gate (`closeWrites`), so a write
 * under way when it starts is erased with the rest, and one that waited for it finds its
 * tombstones — and, when it erased the key's user, the key revoked (`401`, nothing written).
 */
export function withWorkspaceWriting<T>(
  pool: Pool,
  writer: { workspace_id: string; key_id: string; user: string | null },
  fn: (tx: PoolClient) => Promise<T>,
  /** Whose rows it sees: the writer's own, unless an import restores every user's. */
  scope: ScopeOf = writer,
): Promise<T> {
  return inTransaction(pool, fn, undefined, (tx) => beginAsKey(tx, writer, scope, [writesOpenStatement(writer.workspace_id)], 'the API key was revoked; nothing was written'));
}

/**
 * `withWorkspace` for a key that reads on after it was authenticated (a change feed followed for
 * hours): whether the key is still in force is asked in the BEGIN round trip, and a key revoked
 * since — by hand, or with its user's erasure — reads nothing more (`401`).
 */
export function withWorkspaceAsKey<T>(pool: Pool, reader: { workspace_id: string; key_id: string; user: string | null }, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, undefined, (tx) => beginAsKey(tx, reader, reader, [], 'the API key was revoked'));
}

/** BEGIN, the scope, the statements, and whether the key is in force, in one round trip. */
async function beginAsKey(tx: PoolClient, key: { workspace_id: string; key_id: string }, scope: string | ScopeOf, statements: readonly string[], revoked: string): Promise<void> {
  // A connector run in this process writes with no API key (its id is `connector:<instance>`).
  const keyed = isUuid(key.key_id);
  const sent = ['BEGIN', scopeStatement(sessionScope(scopeOf(scope))), ...statements, ...(keyed ? [keyInForceStatement(key.workspace_id, key.key_id)] : [])];
  const results = (await tx.query(sent.join('; '))) as unknown as Array<{ rows: unknown[] }>;
  if (keyed && results.at(-1)!.rows.length === 0) throw new UnauthorizedError(revoked);
}

/**
 * A read confined as `withWorkspace` confines a transaction, in one round trip: the scope and the
 * statements (of literals) as one simple query, which PostgreSQL runs as one transaction. For the
 * reads a request waits on — a page of recall, a compile finding nothing to do — where BEGIN and
 * COMMIT would be two round trips of three.
 */
export function readInWorkspace(pool: Pool, scope: string | ScopeOf, statements: readonly string[]) {
  return readInScope(pool, sessionScope(scopeOf(scope)), statements);
}

/**
 * `withWorkspace` holding a subject's lock from the start: BEGIN, the scope and the lock in one
 * round trip (a compile with nothing to do is its round trips).
 */
export function withSubjectLocked<T>(pool: Pool, scope: string | ScopeOf, subject: string, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  const s = scopeOf(scope);
  return inTransaction(pool, fn, undefined, (tx) => beginInScope(tx, sessionScope(s), lockSubjectStatement(s.workspace_id, subject)));
}

/**
 * `withSubjectLocked` with every user's rows visible, for a request of `key` naming the subject
 * (a compile, a rebuild): in the same round trip as BEGIN and the lock, the subject is looked up
 * as the key sees it and as the workspace holds it, and a subject that exists but not for the key
 * — another user's personal subject — is as absent as one of another workspace (`NotFoundError`).
 */
export function withSubjectLockedFor<T>(
  pool: Pool,
  key: { workspace_id: string; user: string | null },
  subject: string,
  fn: (tx: PoolClient) => Promise<T>,
): Promise<T> {
  const check = visibilityCheck(key, subject);
  return inTransaction(pool, fn, undefined, async (tx) => {
    const sent = ['BEGIN', scopeStatement(check.scope), ...check.statements, lockSubjectStatement(key.workspace_id, subject)];
    const results = (await tx.query(sent.join('; '))) as unknown as Array<{ rows: Array<Record<string, unknown>> }>;
    check.verify(results.slice(2));
  });
}

/**
 * One read of a subject as a compile sees it (every user's rows), in one round trip and without
 * its lock; with `key`, first checked as `withSubjectLockedFor` checks it. Returns the results of
 * `statements` (of literals), in order.
 */
export async function readSubjectFor(
  pool: Pool,
  workspaceId: string,
  key: { workspace_id: string; user: string | null } | undefined,
  subject: string,
  statements: readonly string[],
): Promise<Array<{ rows: Array<Record<string, unknown>> }>> {
  if (!key) return readInWorkspace(pool, allUsersOf(workspaceId), statements);
  const check = visibilityCheck(key, subject);
  const results = await readInScope(pool, check.scope, [...check.statements, ...statements]);
  check.verify(results);
  return results.slice(check.statements.length);
}

/**
 * Another user's personal subject, named by a key that may not see it: a `NotFoundError` to a
 * caller that reads it, and to a compile, a rebuild or a verify the same answer as a name no one
 * wrote (zeros and the empty state's hash) — a `404` there would tell that the subject exists.
 */
export class HiddenSubjectError extends NotFoundError {}

/**
 * A subject looked up as the key sees it (in `scope`, the key's) and as the workspace holds it:
 * `statements` end in the workspace's scope with every user's rows visible, and `verify` reads
 * their results, finding a subject that exists but not for the key — another user's personal
 * subject — as absent as one of another workspace (`HiddenSubjectError`).
 */
function visibilityCheck(key: { workspace_id: string; user: string | null }, subject: string) {
  const ws = key.workspace_id;
  const seen = subjectSeenStatement(ws, subject);
  return {
    scope: sessionScope({ workspace_id: ws, user: key.user }),
    statements: [seen, scopeStatement(sessionScope(allUsersOf(ws))), seen],
    verify(results: ReadonlyArray<{ rows: ReadonlyArray<Record<string, unknown>> }>) {
      const mine = results[0]!.rows[0]!['seen'] === true;
      const anyone = results[2]!.rows[0]!['seen'] === true;
      if (!mine && anyone) throw new HiddenSubjectError(`no subject ${JSON.stringify(subject)}`);
    },
  };
}

function sessionScope(scope: ScopeOf) {
  return { workspace_id: scope.workspace_id, user: 'user' in scope ? scope.user : null, all_users: 'allUsers' in scope };
}

/** Every user's rows of one workspace: compiles, rebuilds, erasure, the job queue's own work. */
export function allUsersOf(workspaceId: string): ScopeOf {
  return { workspace_id: workspaceId, allUsers: true };
}

/**
 * Confines an open transaction to a workspace: from here to its end it runs as the non-owner
 * role canon_app, which row-level security limits to rows whose workspace_id equals the
 * transaction-local setting, and — for a personal row — whose owner is `canon.user` (unless
 * `canon.all_users` is on). All end with the transaction (set_config(…, true)).
 */
export async function enterWorkspace(tx: PoolClient, to: string | ScopeOf): Promise<void> {
  await enterScope(tx, sessionScope(scopeOf(to)));
}

/**
 * Runs fn with every user's rows of the transaction's workspace visible, then narrows back: a
 * request that compiles in its own transaction (read-your-writes, proposals, resolutions)
 * compiles the whole subject, yet reads back only what its key may see.
 */
export async function asAllUsers<T>(tx: PoolClient, fn: () => Promise<T>): Promise<T> {
  const before = await allUsersVisible(tx);
  await setAllUsersVisible(tx, true);
  try {
    return await fn();
  } finally {
    await setAllUsersVisible(tx, before);
  }
}

/**
 * Runs fn in one transaction that may span workspaces: background jobs (the nightly sweep),
 * authentication (a key is looked up before its workspace is known), administration.
 */
export function withSystem<T>(pool: Pool, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, undefined, beginAsSystem);
}
