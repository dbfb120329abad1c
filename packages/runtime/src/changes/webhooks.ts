import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { aRole, atLeast, cleanString, ForbiddenError, NotFoundError, ValidationError, parseInput } from '@canon/core';
import { changesHead, countWebhooks, deleteWebhook, findActiveApiKeyById, insertWebhook, listWebhooks, type Pool, type WebhookRow } from '@canon/store';
import { z } from 'zod';
import { resolverHostAllowed } from '../links/workspace-resolver.js';
import type { Principal } from '../auth/principal.js';
import { allUsersOf, withWorkspace } from '../auth/scope.js';

/** A webhook as `canon webhooks list` and GET /v1/webhooks show it: never its secret. */
/**
 * A webhook as its owners see it: its row but the workspace, and whether its key still stands
 * (`key_id`: the key whose view of the feed it delivers; revoked, it delivers nothing more).
 * `after` is how far deliveries are queued; `dead_letters` counts deliveries that failed every
 * retry and went to the dead-letter queue `webhook-dead`.
 */
export type WebhookView = Omit<WebhookRow, 'workspace_id'> & { active: boolean };

export interface CreatedWebhook {
  webhook: WebhookView;
  /** Shown once: the receiver checks each delivery's signature with it. */
  secret: string;
}

export const WebhookInput = z.strictObject({
  url: z
    .string()
    .max(2048)
    .url()
    .refine((u) => URL.canParse(u) && ['http:', 'https:'].includes(new URL(u).protocol), 'an http or https URL')
    // fetch refuses a URL with credentials, so every delivery would fail; and a URL's user part
    // (`http://evil.com@127.0.0.1/`) is how a host is dressed up as another.
    .refine((u) => !URL.canParse(u) || (new URL(u).username === '' && new URL(u).password === ''), 'a URL without credentials (user:password@): sign requests with the webhook secret'),
  subject: cleanString(z.string().min(1).max(512)).optional(),
  predicate: cleanString(z.string().min(1).max(512)).optional(),
});
export type WebhookInput = z.input<typeof WebhookInput>;

/** The header names of a delivery (README, "Follow it live"). */
export const WEBHOOK_HEADERS = Object.freeze({
  id: 'canon-webhook-id',
  delivery: 'canon-delivery',
  timestamp: 'canon-timestamp',
  signature: 'canon-signature',
});

/**
 * The signature of a delivery: HMAC-SHA256 with the webhook's secret over `<timestamp>.<body>`,
 * hex, as `v1=<hex>`. The timestamp (Unix seconds, also sent in its own header) is signed with
 * the body, so a receiver that refuses old timestamps cannot be fed a recorded delivery again.
 */
export function signDelivery(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Whether this server may POST to the URL: its operator lists the hosts (CANON_WEBHOOK_HOSTS). */
export const webhookHostAllowed = resolverHostAllowed;

function requireMaintainer(principal: Principal, what: string): void {
  if (!atLeast(principal.role, 'maintainer')) throw new ForbiddenError(`only an owner or a maintainer may ${what}, not ${aRole(principal.role)}`);
}

async function view(tx: Parameters<typeof findActiveApiKeyById>[0], r: WebhookRow): Promise<WebhookView> {
  const active = (await findActiveApiKeyById(tx, r.workspace_id, r.key_id)) !== null;
  return {
    id: r.id,
    url: r.url,
    subject: r.subject,
    predicate: r.predicate,
    key_id: r.key_id,
    active,
    after: r.after,
    delivered: r.delivered,
    failed_attempts: r.failed_attempts,
    dead_letters: r.dead_letters,
    last_error: r.last_error,
    last_attempt_at: r.last_attempt_at,
    last_delivered_at: r.last_delivered_at,
    created_at: r.created_at,
  };
}

/**
 * A webhook bound to the creating key: it delivers what that key may see of the feed, from now
 * on (the changes settled before it are not sent). Its URL's host must be one the operator allows.
 */
/** Webhooks per workspace: each is read every second by the dispatcher, so their number is bounded. */
export const MAX_WEBHOOKS = 50;

export async function createWebhook(pool: Pool, principal: Principal, input: unknown, hosts: readonly string[]): Promise<CreatedWebhook> {
  requireMaintainer(principal, 'add a webhook');
  const w = parseInput(WebhookInput, input);
  if (!webhookHostAllowed(w.url, hosts)) {
    throw new ValidationError(
      hosts.length === 0
        ? 'url: this server posts webhooks to no host (its operator lists them in CANON_WEBHOOK_HOSTS)'
        : `url: ${new URL(w.url).host} is not a webhook host this server allows (CANON_WEBHOOK_HOSTS)`,
      [{ index: 0, path: 'url', message: 'host not allowed' }],
    );
  }
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const ws = principal.workspace_id;
  // The head over every user's rows: a personal change settled before now is not owed either.
  return withWorkspace(pool, allUsersOf(ws), async (tx) => {
    if ((await countWebhooks(tx, ws)) >= MAX_WEBHOOKS) {
      throw new ValidationError(`this workspace has ${MAX_WEBHOOKS} webhooks, the most it may have: remove one first`, [{ index: 0, path: 'url', message: 'too many webhooks' }]);
    }
    const row = await insertWebhook(tx, ws, {
      id: randomUUID(),
      url: w.url,
      subject: w.subject ?? null,
      predicate: w.predicate ?? null,
      key_id: principal.key_id,
      secret,
      after: await changesHead(tx, ws),
    });
    return { webhook: await view(tx, row), secret };
  });
}

export async function listWorkspaceWebhooks(pool: Pool, principal: Principal): Promise<WebhookView[]> {
  requireMaintainer(principal, 'list webhooks');
  return withWorkspace(pool, principal, async (tx) => {
    // One connection runs one query at a time: the views one after the other.
    const out: WebhookView[] = [];
    for (const r of await listWebhooks(tx, principal.workspace_id)) out.push(await view(tx, r));
    return out;
  });
}

/** Removes a webhook: deliveries already queued find it gone and are dropped. */
export async function removeWebhook(pool: Pool, principal: Principal, id: string): Promise<{ removed: string }> {
  requireMaintainer(principal, 'remove a webhook');
  if (!z.uuid().safeParse(id).success) throw new NotFoundError(`no webhook ${id}`);
  const removed = await withWorkspace(pool, principal, (tx) => deleteWebhook(tx, principal.workspace_id, id));
  if (!removed) throw new NotFoundError(`no webhook ${id}`);
  return { removed: id };
}
