import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse } from '../schemas.js';

const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    subject: z.string().nullable(),
    predicate: z.string().nullable(),
    key_id: z.string().openapi({ description: 'the key whose view of the feed it delivers' }),
    active: z.boolean().openapi({ description: 'false once that key is revoked: nothing more is delivered' }),
    after: z.string().openapi({ description: 'how far deliveries are queued (a cursor of the feed)' }),
    delivered: z.number().int(),
    failed_attempts: z.number().int(),
    dead_letters: z.number().int().openapi({ description: 'deliveries that failed every retry (queue `webhook-dead`)' }),
    last_error: z.string().nullable(),
    last_attempt_at: z.string().nullable(),
    last_delivered_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Webhook');

const WebhookInputSchema = z
  .strictObject({
    url: z.string().max(2048).openapi({ description: 'http or https, on a host the operator allows (CANON_WEBHOOK_HOSTS)' }),
    subject: z.string().min(1).max(512).optional(),
    predicate: z.string().min(1).max(512).optional(),
  })
  .openapi('WebhookInput');

const postWebhook = createRoute({
  method: 'post',
  path: '/v1/webhooks',
  summary: 'Add a webhook: the change feed POSTed to a URL, signed (owner, maintainer)',
  description:
    'Delivers each change the creating key may see (from now on, optionally of one subject or predicate) as the JSON of a `ChangeEvent`, with headers `Canon-Webhook-Id`, `Canon-Delivery` (the cursor), `Canon-Timestamp` (Unix seconds) and `Canon-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under the secret>`. ' +
    'A delivery that fails (no 2xx within the timeout) is retried with exponential backoff, then dead-lettered. The secret is in this answer only.',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: WebhookInputSchema } } } },
  responses: {
    201: { description: 'Added', content: { 'application/json': { schema: z.object({ webhook: WebhookSchema, secret: z.string() }) } } },
    400: problemResponse('Not an http(s) URL, or a host this server does not allow'),
    403: problemResponse('Only an owner or a maintainer may add a webhook'),
  },
});

const getWebhooks = createRoute({
  method: 'get',
  path: '/v1/webhooks',
  summary: "The workspace's webhooks with their deliveries, failures and dead letters (owner, maintainer)",
  security: [{ bearer: [] }],
  responses: {
    200: { description: 'The webhooks (never their secrets)', content: { 'application/json': { schema: z.object({ webhooks: z.array(WebhookSchema) }) } } },
    403: problemResponse('Only an owner or a maintainer may list webhooks'),
  },
});

const deleteWebhook = createRoute({
  method: 'delete',
  path: '/v1/webhooks/{webhook_id}',
  summary: 'Remove a webhook; deliveries already queued are dropped (owner, maintainer)',
  security: [{ bearer: [] }],
  request: { params: z.object({ webhook_id: z.string().max(64) }) },
  responses: {
    200: { description: 'Removed', content: { 'application/json': { schema: z.object({ removed: z.string() }) } } },
    403: problemResponse('Only an owner or a maintainer may remove a webhook'),
    404: problemResponse('No such webhook in this workspace'),
  },
});

export function webhookRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(postWebhook, async (c) => c.json(await runtime.createWebhook(c.get('principal'), c.req.valid('json')), 201));
  app.openapi(getWebhooks, async (c) => c.json({ webhooks: await runtime.webhooks(c.get('principal')) }, 200));
  app.openapi(deleteWebhook, async (c) => c.json(await runtime.removeWebhook(c.get('principal'), c.req.valid('param').webhook_id), 200));
}
