import { inTransaction, type Pool, type PoolClient } from '@canon/store';

/**
 * Runs fn in one transaction confined to a workspace: the transaction-local setting
 * `canon.workspace_id` is what the row-level security policies compare every row with.
 * Every request-scoped database access of the runtime goes through here.
 */
export function withWorkspace<T>(pool: Pool, workspaceId: string, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (tx) => {
    await enterWorkspace(tx, workspaceId);
    return fn(tx);
  });
}

/**
 * Confines an open transaction to a workspace: from here to its end it runs as the non-owner
 * role canon_app, which row-level security limits to rows whose workspace_id equals the
 * transaction-local setting. Both end with the transaction (SET LOCAL, set_config(…, true)).
 */
export async function enterWorkspace(tx: PoolClient, workspaceId: string): Promise<void> {
  await tx.query(`SELECT set_config('canon.workspace_id', $1, true), set_config('role', 'canon_app', true)`, [workspaceId]);
}

/**
 * Runs fn in one transaction that may span workspaces: background jobs (the nightly sweep),
 * authentication (a key is looked up before its workspace is known), administration.
 */
export function withSystem<T>(pool: Pool, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (tx) => {
    await tx.query(`SELECT set_config('role', 'canon_system', true)`);
    return fn(tx);
  });
}
