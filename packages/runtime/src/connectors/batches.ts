import { atLeast, canWrite, CursorConflictError, ForbiddenError, ValidationError } from '@canon/core';
import { redactJson } from '../ingest/secrets.js';
import { findConnectorInstance, loadConnectorCursor, saveConnectorCursor, type Pool, type PoolClient, type Sql } from '@canon/store';
import type { Principal } from '../auth/principal.js';
import type { IngestResult } from '../ingest/ingest.js';
import { withWorkspace, withWorkspaceWriting } from '../auth/scope.js';
import { checkInstanceId, CONNECTOR_IDS, connectorOfInstance } from './registry.js';

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
 * episodes every role may page through — once its secrets are hidden as theirs are. A cursor is
 * the connector's own record, kept as it wrote it (a workspace scan's file names, which a run
 * compares with the disk): a connector key, a maintainer and an owner read it so; any other role
 * reads it with every secret replaced, as the door replaces it in an episode (a file named
 * `notes-ghp_…md` was filed redacted, while its cursor handed a reader the token).
 */
export async function connectorCursor(pool: Pool, principal: Principal, instanceId: string): Promise<ConnectorCursorView> {
  const id = checkInstanceId(instanceId);
  const row = await withWorkspace(pool, principal, (tx) => loadConnectorCursor(tx, { workspaceId: principal.workspace_id, instanceId: id }));
  const cursor = row?.cursor ?? null;
  const raw = principal.role === 'connector' || atLeast(principal.role, 'maintainer');
  return { workspace_id: principal.workspace_id, instance_id: id, cursor: raw ? cursor : await redactJson(principal.workspace_id, cursor) };
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
  await checkConnectorKey(pool, principal, ref.instanceId, input.episodes);
  const save = async (sql: Sql) => {
    const saved = await saveConnectorCursor(sql, { ...ref, expected: input.expected ?? null, cursor: input.cursor ?? null });
    if (!saved.ok) throw new CursorConflictError(ref.instanceId);
  };
  if (input.episodes.length === 0) {
    await withWorkspaceWriting(pool, principal, save);
    return { items: [], created: 0, duplicates: 0, erased: 0, redacted: 0, refused: 0, statements: {}, subjects: [] };
  }
  const writer: Principal = Object.freeze({ ...principal, user: `connector:${ref.instanceId}` });
  return ingest(writer, input.episodes, { inTransaction: save });
}

/**
 * A batch writes as the instance (`connector:<instance>` is its episodes' author) and moves its
 * cursor, so only the connector's own credential may send one (design §2): a key bound to the
 * instance's connector, its episodes all of that connector's source. Any other writer — a member
 * taking over the instance's authorship, an agent moving its cursor past what it has read — is
 * refused. The instance's connector is that of its registered row, else the one its id starts
 * with (`github:acme/api`, as a run names it by default).
 */
async function checkConnectorKey(pool: Pool, principal: Principal, instanceId: string, episodes: readonly unknown[]): Promise<void> {
  const registeredRow = await withWorkspace(pool, principal, (tx) => findConnectorInstance(tx, principal.workspace_id, instanceId));
  const connector = connectorOfInstance(instanceId, registeredRow?.connector);
  if (connector === null) {
    throw new ValidationError(`instance_id: ${JSON.stringify(instanceId)} is no instance of a connector: its id starts with one (${CONNECTOR_IDS.join(', ')}) and a colon, or it is registered`);
  }
  if (!(principal.sources ?? []).includes(connector)) {
    throw new ForbiddenError(`instance ${instanceId} is the ${connector} connector’s: only a key bound to it sends its batches or moves its cursor (canon keys create --role connector --source ${connector})`);
  }
  const other = episodes.findIndex((e) => typeof e === 'object' && e !== null && !Array.isArray(e) && ((e as { source?: unknown }).source ?? 'api') !== connector);
  if (other >= 0) throw new ForbiddenError(`episode ${other}: a batch of the ${connector} connector holds its episodes only (source ${JSON.stringify(connector)}); nothing was stored`);
}
