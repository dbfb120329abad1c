import { KeyConflictError as IngestKeyConflictError, type EpisodeInput } from '@canon/core';
import { ConnectorError, KeyConflictError, type CommitItemResult, type ConnectorSink, type JsonValue } from '@canon/connector-kit';
import { loadConnectorCursor, saveConnectorCursor, type Sql } from '@canon/store';
import type { Runtime } from '../surface.js';
import type { Principal } from '../auth/principal.js';

export interface ConnectorRunTarget {
  workspaceId: string;
  instanceId: string;
  /** The connector's id, the one reserved source its run may write. */
  connector: string;
}

/**
 * The principal of an in-process connector run: the `connector` role (design §3 standing), and
 * the instance as the user, so every episode says which instance wrote it, bound to its
 * connector's source like a connector key. No API key backs it: only code holding the runtime
 * can build one.
 */
export function connectorPrincipal(target: ConnectorRunTarget): Principal {
  return Object.freeze({
    workspace_id: target.workspaceId,
    role: 'connector',
    user: `connector:${target.instanceId}`,
    key_id: `connector:${target.instanceId}`,
    sources: Object.freeze([target.connector]),
  });
}

/** Another run of the same instance saved a cursor after this one read it. */
export class CursorMovedError extends ConnectorError {
  override readonly name = 'CursorMovedError';
  constructor(instanceId: string) {
    super(
      'cursor_moved',
      `the cursor of connector instance ${instanceId} was moved by another run; this batch was not stored (run it again)`,
    );
  }
}

/**
 * A ConnectorSink over PostgreSQL: each commit appends the batch through `runtime.ingest` with
 * the connector principal and saves the cursor inside that same transaction, so after a crash
 * the cursor never points past a batch that was not stored (design §6). The cursor write is
 * conditional on the cursor this run last read or wrote (see saveConnectorCursor).
 */
export function createPostgresSink(runtime: Pick<Runtime, 'pool' | 'ingest'>, target: ConnectorRunTarget): ConnectorSink {
  const principal = connectorPrincipal(target);
  const ref = { workspaceId: target.workspaceId, instanceId: target.instanceId };
  let expected: JsonValue | null | undefined;

  async function save(sql: Sql, cursor: JsonValue): Promise<void> {
    const saved = await saveConnectorCursor(sql, { ...ref, expected: expected ?? null, cursor });
    if (!saved.ok) throw new CursorMovedError(target.instanceId);
  }

  async function loadCursor(): Promise<JsonValue | null> {
    const row = await loadConnectorCursor(runtime.pool, ref);
    expected = (row?.cursor ?? null) as JsonValue | null;
    return expected;
  }

  return {
    loadCursor,
    async commit(episodes: EpisodeInput[], cursor: JsonValue): Promise<CommitItemResult[]> {
      if (expected === undefined) await loadCursor();
      if (episodes.length === 0) {
        // Nothing to append (ingest refuses an empty batch), but the source moved on: a page of
        // skipped files, the last page of a workspace scan.
        await save(runtime.pool, cursor);
        expected = cursor;
        return [];
      }
      try {
        const result = await runtime.ingest(principal, episodes, { inTransaction: (tx) => save(tx, cursor) });
        expected = cursor;
        return result.items.map((item) => ({
          index: item.index,
          status: item.status,
          episode_id: item.episode_id ?? null,
          ...(item.redactions ? { redacted: item.redactions.length } : {}),
        }));
      } catch (err) {
        if (err instanceof IngestKeyConflictError) {
          // The kit's runner drops one item per conflict and resubmits the rest; the first
          // conflict is enough. A conflict inside the batch itself names no stored episode.
          const first = err.conflicts[0];
          if (first) throw new KeyConflictError(first.index, first.idempotency_key, first.episode_id ?? '');
        }
        throw err;
      }
    },
  };
}
