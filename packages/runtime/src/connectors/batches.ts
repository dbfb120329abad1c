import { canWrite, CursorConflictError, ForbiddenError } from '@canon/core';
import { loadConnectorCursor, saveConnectorCursor, type Pool, type PoolClient, type Sql } from '@canon/store';
import type { Principal } from '../auth/principal.js';
import type { IngestResult } from '../ingest/ingest.js';
import { withWorkspace } from '../auth/scope.js';
import { checkInstanceId } from './registry.js';

/**
 * The server side of a connector run fed from elsewhere (`canon sync` with CANON_URL): the
 * cursor of an instance is kept here, per workspace, and each batch is appended and the cursor
 * saved in one transaction, as the in-process sink does.
 *
 * Who writes: the calling key — its workspace, its role's standing, its source binding, its id
 * as the episodes' `actor_key` — with the instance as the actor's user (`connector:<instance>`),
 * as in an in-process run. Episodes are compared whole, actor included, so a `connector` key's
 * batches are the very episodes an in-process run of the same instance writes: a sync can move
 * from a laptop to the server, or alternate between them, and re-read items stay duplicates
 * whoever ran them, rather than turning into key conflicts when another key's user re-reads them.
 */

export interface ConnectorCursorView {
  workspace_id: string;
  instance_id: string;
  /** Null: the instance never committed a batch in this workspace (or its cursor was reset). */
  cursor: unknown;
}

export interface ConnectorBatchInput {
  instanceId: string;
  episodes: readonly unknown[];
  /** The cursor after this batch. */
  cursor: unknown;
  /** The cursor the run read (or last saved); null when it read none. */
  expected: unknown;
}

export type ConnectorBatchResult = Omit<IngestResult, 'subjects'> & { subjects: string[] };

/** The runtime's ingest, whose transaction the cursor is saved in. */
type IngestInTransaction = (principal: Principal, items: readonly unknown[], options: { inTransaction: (tx: PoolClient) => Promise<void> }) => Promise<IngestResult>;

/**
 * Any role may read a cursor of its workspace (a dry run reads one): it tells less than the
 * episodes every role may page through.
 */
export async function connectorCursor(pool: Pool, principal: Principal, instanceId: string): Promise<ConnectorCursorView> {
  const id = checkInstanceId(instanceId);
  const row = await withWorkspace(pool, principal, (tx) => loadConnectorCursor(tx, { workspaceId: principal.workspace_id, instanceId: id }));
  return { workspace_id: principal.workspace_id, instance_id: id, cursor: row?.cursor ?? null };
}

/**
 * Appends a batch and moves the cursor from `expected` to `cursor`, in one transaction; a
 * cursor moved by another run throws CursorConflictError and nothing is stored. An empty batch
 * (a page of skipped files, the end of a scan) only moves the cursor.
 */
export async function commitConnectorBatch(
  pool: Pool,
  ingest: IngestInTransaction,
  principal: Principal,
  input: ConnectorBatchInput,
): Promise<ConnectorBatchResult> {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot run connectors`);
  const ref = { workspaceId: principal.workspace_id, instanceId: checkInstanceId(input.instanceId) };
  const save = async (sql: Sql) => {
    const saved = await saveConnectorCursor(sql, { ...ref, expected: input.expected ?? null, cursor: input.cursor ?? null });
    if (!saved.ok) throw new CursorConflictError(ref.instanceId);
  };
  if (input.episodes.length === 0) {
    await withWorkspace(pool, principal, save);
    return { items: [], created: 0, duplicates: 0, erased: 0, redacted: 0, refused: 0, statements: {}, subjects: [] };
  }
  const writer: Principal = Object.freeze({ ...principal, user: `connector:${ref.instanceId}` });
  return ingest(writer, input.episodes, { inTransaction: save });
}
