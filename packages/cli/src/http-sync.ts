import { CanonError, ValidationError } from '@canon/core/errors';
import { ConnectorError, KeyConflictError, type CommitItemResult, type ConnectorSink, type JsonValue } from '@canon/connector-kit';
import type { CanonPort, ConnectorBatchAnswer, ConnectorDestination, SyncCompileSummary } from '@canon/runtime';

// Subjects per synchronous compile request: each answer stays well inside an HTTP timeout.
const COMPILE_CHUNK = 500;

/**
 * A run into a Canon server (POST /v1/connectors/{instance}/batches): the server appends each
 * batch with this key's principal and moves the instance's cursor, which it keeps, in the same
 * transaction; the run only carries the cursor it read, so a run racing it is refused (409
 * `cursor_moved`) rather than moving the cursor backwards.
 */
export function httpDestination(port: CanonPort, options: { workspace?: string } = {}): ConnectorDestination {
  let workspace = '';
  return {
    workspaceId: () => workspace,
    sink(instanceId, _connector, onWritten): ConnectorSink {
      let expected: JsonValue | null | undefined;
      async function loadCursor(): Promise<JsonValue | null> {
        const view = await port.connectorCursor(instanceId);
        // The key decides the workspace; one named otherwise is a mistake to stop at, before
        // anything is written.
        if (options.workspace !== undefined && options.workspace !== view.workspace_id) {
          throw new ValidationError(`--workspace ${options.workspace}: the key at CANON_URL writes to workspace ${view.workspace_id}`);
        }
        workspace = view.workspace_id;
        // What the connector wrote, come back as JSON.
        expected = (view.cursor ?? null) as JsonValue | null;
        return expected;
      }
      return {
        loadCursor,
        async commit(episodes, cursor): Promise<CommitItemResult[]> {
          if (expected === undefined) await loadCursor();
          let answer: ConnectorBatchAnswer;
          try {
            answer = await port.connectorBatch(instanceId, { episodes, cursor, expected });
          } catch (err) {
            throw asConnectorError(err);
          }
          expected = cursor;
          onWritten(answer.subjects);
          return answer.items.map((item) => ({
            index: item.index,
            status: item.status,
            episode_id: item.episode_id ?? null,
            ...(item.redactions ? { redacted: item.redactions.length } : {}),
          }));
        },
      };
    },
    async compile(subjects): Promise<SyncCompileSummary> {
      const sum: SyncCompileSummary = { subjects: 0, episodes_processed: 0, memories_created: 0, memories_updated: 0, conflicts_opened: 0, tombstoned: 0, failed: 0 };
      for (let i = 0; i < subjects.length; i += COMPILE_CHUNK) {
        const compiled = await port.compile({ subjects: subjects.slice(i, i + COMPILE_CHUNK) });
        if (compiled.async || !('totals' in compiled.result)) throw new Error('the server answered a compile of many subjects with something else');
        const many = compiled.result;
        sum.subjects += many.subjects;
        sum.episodes_processed += many.totals['episodes_processed'] ?? 0;
        sum.memories_created += many.totals['memories_created'] ?? 0;
        sum.memories_updated += many.totals['memories_updated'] ?? 0;
        sum.conflicts_opened += many.totals['conflicts_opened'] ?? 0;
        sum.tombstoned += many.totals['tombstoned'] ?? 0;
        sum.failed += many.failed.length;
      }
      return sum;
    },
  };
}

/**
 * What the kit's runner needs to tell apart: a key conflict (drop the item, go on), a server
 * busy or away (retry from the last committed cursor); anything else stops the run as it is.
 */
function asConnectorError(err: unknown): unknown {
  if (!(err instanceof CanonError)) return err;
  const e = err;
  if (e.type === 'key_conflict') {
    const first = (e.details['conflicts'] as Array<{ index: number; idempotency_key: string; episode_id: string | null }> | undefined)?.[0];
    if (first) return new KeyConflictError(first.index, first.idempotency_key, first.episode_id ?? '');
  }
  if (e.type === 'busy' || e.type === 'unavailable') return new ConnectorError(e.type, e.message, { transient: true, cause: e });
  return err;
}
