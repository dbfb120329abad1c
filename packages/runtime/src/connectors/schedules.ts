import type { PgBoss } from 'pg-boss';

/** The pg-boss queue of scheduled (and on-demand) connector instance runs. */
export const CONNECTOR_RUN_QUEUE = 'connector-run';

/** What a `connector-run` job carries: the instance, never its configuration (read at run time). */
export interface ConnectorRunJobData {
  workspace_id: string;
  instance_id: string;
}

/**
 * The pg-boss schedule key of an instance, `<workspace>/<instance>`. pg-boss keys allow only
 * `[\w.\-/]`, and instance ids hold `:` (`github:o/r`): every other character, `_` included, is
 * written `_XX` per UTF-8 byte, so distinct instances never share a key. Workspace ids hold no
 * `/`, so the first `/` still separates the two.
 */
export function connectorScheduleKey(workspaceId: string, instanceId: string): string {
  return `${escapeKey(workspaceId)}/${escapeKey(instanceId)}`;
}

function escapeKey(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9.\-/]/.test(ch) ? ch : `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Creates the queue once. `stately` with the schedule key as singleton key: at most one run of
 * an instance active and one waiting, so a slow sync is not joined by a pile of cron ticks.
 * Retried once; the next tick catches up anyway, since a run resumes from its cursor.
 */
export async function ensureConnectorQueue(boss: PgBoss): Promise<void> {
  if (await boss.getQueue(CONNECTOR_RUN_QUEUE)) return;
  try {
    await boss.createQueue(CONNECTOR_RUN_QUEUE, {
      policy: 'stately',
      retryLimit: 1,
      retryDelay: 60,
      // A first sync of a long history can take a while; a heartbeat, not a short expiry,
      // tells a stuck worker from a busy one.
      expireInSeconds: 6 * 60 * 60,
      heartbeatSeconds: 60,
    });
  } catch (err) {
    // Two processes starting together: the other one created it first.
    if (!(await boss.getQueue(CONNECTOR_RUN_QUEUE))) throw err;
  }
}
