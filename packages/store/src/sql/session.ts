import type pg from 'pg';
import type { Sql } from '../db.js';
import { SQLSTATE, sqlState } from '../errors.js';

/**
 * What a transaction may see, as row-level security reads it: the workspace, the user whose
 * personal rows it may touch (none: '' ), and whether every user's personal rows are visible
 * (compiles and erasure act on a subject as a whole).
 */
export interface SessionScope {
  workspace_id: string;
  user: string | null;
  all_users: boolean;
}

/**
 * Confines an open transaction to a workspace: from here to its end it runs as the non-owner role
 * canon_app, which the policies of migration 0011 limit to rows whose workspace_id equals
 * `canon.workspace_id` and — for a personal row — whose owner is `canon.user` (unless
 * `canon.all_users` is on). set_config(…, true): all of it ends with the transaction.
 */
export async function enterScope(tx: Sql, scope: SessionScope): Promise<void> {
  await tx.query(
    `SELECT set_config('canon.workspace_id', $1, true), set_config('canon.user', $2, true),
            set_config('canon.all_users', $3, true), set_config('role', 'canon_app', true)`,
    [scope.workspace_id, scope.user ?? '', scope.all_users ? 'on' : 'off'],
  );
}

/** Whether every user's rows are visible to the open transaction. */
export async function allUsersVisible(tx: Sql): Promise<boolean> {
  const { rows } = await tx.query<{ v: string | null }>(`SELECT current_setting('canon.all_users', true) AS v`);
  return rows[0]?.v === 'on';
}

export async function setAllUsersVisible(tx: Sql, on: boolean): Promise<void> {
  await tx.query(`SELECT set_config('canon.all_users', $1, true)`, [on ? 'on' : 'off']);
}

/** The role for work across workspaces (jobs, authentication, administration), to the transaction's end. */
export async function enterSystemRole(tx: Sql): Promise<void> {
  await tx.query(`SELECT set_config('role', 'canon_system', true)`);
}

/**
 * A subject's transaction-level advisory lock: compiles, rebuilds, conditional writes and erasure
 * of one subject take turns. Two int4 halves of a hash of (workspace, subject); released at commit.
 */
export async function lockSubject(tx: Sql, workspaceId: string, subject: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7236003))', [JSON.stringify([workspaceId, subject])]);
}

/** The lock two processes starting on a fresh database take before minting the first key. */
export async function lockKeyBootstrap(tx: Sql): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7236002)');
}

/** Thrown when a lock was not granted within the transaction's lock timeout (SQLSTATE 55P03). */
export class LockTimeoutError extends Error {
  constructor(cause: unknown) {
    super('a lock was not granted within the lock timeout', { cause });
  }
}

/**
 * Runs fn with a lock timeout for the rest of the transaction: a statement waiting longer for a
 * lock fails, the transaction is aborted, and the caller gets a LockTimeoutError to answer "busy,
 * retry" with — instead of holding a connection behind a long compile.
 */
export async function withLockTimeout<T>(tx: Sql, milliseconds: number, fn: () => Promise<T>): Promise<T> {
  await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [`${Math.max(1, Math.round(milliseconds))}ms`]);
  try {
    return await fn();
  } catch (err) {
    throw sqlState(err) === SQLSTATE.lockNotAvailable ? new LockTimeoutError(err) : err;
  }
}

/**
 * Runs fn in one read-only snapshot (REPEATABLE READ): every query sees the database as of the
 * first one, whatever commits meanwhile. Nothing fn does can write.
 */
export async function inSnapshot<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const tx = await pool.connect();
  try {
    await tx.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const out = await fn(tx);
    await tx.query('COMMIT');
    return out;
  } catch (err) {
    await tx.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    tx.release();
  }
}

/** Ids of every workspace (the nightly sweep walks them). */
export async function workspaceIds(tx: Sql): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM workspaces ORDER BY id');
  return rows.map((r) => r.id);
}
