import type { PgBoss } from 'pg-boss';
import {
  advanceWebhook,
  allWebhookIds,
  changeAt,
  changesAfter,
  enterScope,
  enterSystemRole,
  findActiveApiKeyById,
  inTransaction,
  lockWebhook,
  noteWebhookError,
  recordDeliveryAttempt,
  webhookById,
  type Pool,
} from '@canon/store';
import { bossDb, ensureQueue, POLLING } from '../compile/jobs.js';
import { log } from '../ops/log.js';
import { withSystem, withWorkspace } from '../auth/scope.js';
import { toEvent } from './feed.js';
import { signDelivery, WEBHOOK_HEADERS, webhookHostAllowed } from './webhooks.js';

export const WEBHOOK_QUEUES = Object.freeze({
  delivery: 'webhook-delivery',
  dead: 'webhook-dead',
});

export interface WebhookSettings {
  /** Hosts a webhook may point at (CANON_WEBHOOK_HOSTS). */
  readonly hosts: readonly string[];
  /** One delivery request's bound (ms). */
  readonly timeoutMs: number;
  /** Retries after the first attempt, then the dead letter. */
  readonly retryLimit: number;
  /** The first retry's delay (s); each later one doubles it, with jitter. */
  readonly retryDelaySeconds: number;
}

/** A delivery job names the change by its cursor, never its content: an erasure leaves nothing in the queue. */
export interface DeliveryJobData {
  workspace_id: string;
  webhook_id: string;
  cursor: string;
}

/** What `canon webhooks list` says of a webhook whose key was revoked: it delivers nothing more. */
export const KEY_REVOKED = 'the key that created it is revoked: nothing more is delivered';

/** Changes queued per webhook and transaction. */
const DISPATCH_PAGE = 500;

export async function setupWebhookQueues(boss: PgBoss, settings: WebhookSettings, retentionDays: number): Promise<void> {
  const deleteAfterSeconds = Math.round(retentionDays * 86_400);
  await ensureQueue(boss, WEBHOOK_QUEUES.dead, { policy: 'standard', deleteAfterSeconds });
  await ensureQueue(boss, WEBHOOK_QUEUES.delivery, {
    policy: 'standard',
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: true,
    retryDelayMax: 3600,
    // A delivery is one bounded request: a job still active well past it lost its worker.
    expireInSeconds: Math.max(30, Math.ceil(settings.timeoutMs / 1000) * 3),
    deadLetter: WEBHOOK_QUEUES.dead,
    deleteAfterSeconds,
    notify: true,
  });
}

/**
 * Queues deliveries of one webhook: under its lock (a second dispatcher skips it), as its key may
 * see the feed, the changes after its cursor, and moves the cursor — the jobs and the cursor in
 * one transaction, so each change is queued once. A revoked key queues nothing.
 */
export async function dispatchWebhook(pool: Pool, boss: PgBoss, workspaceId: string, id: string): Promise<number> {
  return inTransaction(pool, async (tx) => {
    await enterSystemRole(tx);
    const w = await lockWebhook(tx, workspaceId, id, false);
    if (!w) return 0;
    const key = await findActiveApiKeyById(tx, workspaceId, w.key_id);
    if (!key) {
      await noteWebhookError(tx, workspaceId, id, KEY_REVOKED);
      return 0;
    }
    await enterScope(tx, { workspace_id: workspaceId, user: key.user_id, all_users: false });
    const page = await changesAfter(tx, workspaceId, { after: w.after, subject: w.subject ?? undefined, predicate: w.predicate ?? undefined, limit: DISPATCH_PAGE });
    if (!page.ok || page.changes.length === 0) return 0;
    const jobs = page.changes.map((c) => ({ data: { workspace_id: workspaceId, webhook_id: id, cursor: c.cursor } satisfies DeliveryJobData }));
    await boss.insert(WEBHOOK_QUEUES.delivery, jobs, { db: bossDb(tx) });
    const [tx_id, position] = page.changes.at(-1)!.cursor.split('.') as [string, string];
    await advanceWebhook(tx, workspaceId, id, { tx: tx_id, position });
    return jobs.length;
  });
}

/**
 * The dispatcher: every `intervalMs`, queues the deliveries owed to each webhook. Compiles only
 * write change rows; this runs after they commit, so a slow or failing receiver never holds a
 * compile back.
 */
export function startDispatcher(pool: Pool, boss: PgBoss, intervalMs = 1000): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const round = async () => {
    const hooks = await withSystem(pool, (tx) => allWebhookIds(tx));
    for (const h of hooks) {
      if (stopped) return;
      // A full page may leave more: go on with this webhook before the next one waits a round.
      while (!stopped && (await dispatchWebhook(pool, boss, h.workspace_id, h.id)) === DISPATCH_PAGE);
    }
  };
  const tick = () => {
    running = round()
      .catch((err: unknown) => log().warn({ event: 'webhook_dispatch_failed', err }, 'webhook dispatch failed; retried next round'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** What became of one delivery job. */
export type DeliveryOutcome = { delivered: true; status: number } | { delivered: false; skipped: 'removed' | 'key_revoked' | 'gone' | 'host_not_allowed' };

/**
 * Delivers one change: the event JSON, signed, POSTed with a bound on time and no redirect
 * followed. A failure (a network error, a timeout, a status other than 2xx) is recorded and
 * thrown, so pg-boss retries with backoff; the last one goes to the dead letter. A webhook
 * removed, a key revoked, a change erased or hidden since: nothing is sent.
 */
export async function deliver(pool: Pool, settings: WebhookSettings, job: { data: DeliveryJobData; retryCount: number }): Promise<DeliveryOutcome> {
  const { workspace_id: ws, webhook_id: id, cursor } = job.data;
  const found = await withSystem(pool, async (tx) => {
    const w = await webhookById(tx, ws, id);
    return w ? { w, key: await findActiveApiKeyById(tx, ws, w.key_id) } : null;
  });
  if (!found) return { delivered: false, skipped: 'removed' };
  const { w, key } = found;
  if (!key) return { delivered: false, skipped: 'key_revoked' };
  if (!webhookHostAllowed(w.url, settings.hosts)) {
    await withSystem(pool, (tx) => recordDeliveryAttempt(tx, ws, id, { ok: false, error: 'host no longer allowed (CANON_WEBHOOK_HOSTS)', dead: false }));
    return { delivered: false, skipped: 'host_not_allowed' };
  }
  const row = await withWorkspace(pool, { workspace_id: ws, user: key.user_id }, (tx) => changeAt(tx, ws, cursor));
  if (!row) return { delivered: false, skipped: 'gone' };
  const body = JSON.stringify(toEvent(row));
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const res = await fetch(w.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'canon-webhooks/1',
        [WEBHOOK_HEADERS.id]: id,
        [WEBHOOK_HEADERS.delivery]: cursor,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signDelivery(w.secret, timestamp, body),
      },
      body,
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
    await withSystem(pool, (tx) => recordDeliveryAttempt(tx, ws, id, { ok: true }));
    return { delivered: true, status: res.status };
  } catch (err) {
    const error = err instanceof Error ? (err.name === 'TimeoutError' ? `timed out after ${settings.timeoutMs} ms` : err.message) : String(err);
    const dead = job.retryCount >= settings.retryLimit;
    await withSystem(pool, (tx) => recordDeliveryAttempt(tx, ws, id, { ok: false, error, dead }));
    throw new Error(`webhook delivery failed: ${error}`, { cause: err });
  }
}

/** Registers the delivery worker of this process. */
export async function startDeliveryWorker(boss: PgBoss, pool: Pool, settings: WebhookSettings): Promise<void> {
  await boss.work<DeliveryJobData>(WEBHOOK_QUEUES.delivery, { localConcurrency: 4, ...POLLING }, async ([job]) => {
    const outcome = await deliver(pool, settings, job!);
    if (!outcome.delivered) log().info({ event: 'webhook_skipped', workspace_id: job!.data.workspace_id, webhook_id: job!.data.webhook_id, reason: outcome.skipped }, 'webhook delivery skipped');
    return outcome;
  });
}
