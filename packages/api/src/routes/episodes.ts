import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { EpisodeInput, SecretRefusedError, ValidationError } from '@canon/core';
import { ingestAnswer, type Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { EpisodeBatch, EpisodePage, IngestResponse, problemResponse } from '../schemas.js';
import { readJson } from '../read-json.js';

const postEpisodes = createRoute({
  method: 'post',
  path: '/v1/episodes',
  summary: 'Append one episode or a batch of up to 1,000 to the log',
  description:
    'Per item: `created` or `duplicate` (same key, same envelope) with the episode id. Any invalid item or key conflict rejects the whole batch and stores nothing. ' +
    'Every string of every item is scanned for secrets first: each is replaced by `[redacted:<rule>:<hash>]` and listed in the item’s `redactions`, or, under the workspace policy `secrets: "refuse"`, the item is `refused` (one episode posted alone: 400 `secret_refused`) while the rest of the batch proceeds.',
  security: [{ bearer: [] }],
  request: {
    query: z.object({ compile: z.enum(['wait']).optional() }),
    body: { required: true, content: { 'application/json': { schema: z.union([EpisodeInput, EpisodeBatch]) } } },
  },
  responses: {
    200: { description: 'Every item stored or recognised', content: { 'application/json': { schema: IngestResponse } } },
    400: problemResponse('Invalid items (`issues` names each item and why), or one episode posted alone that holds a secret in a workspace that refuses them (`secret_refused`, naming `rule` and `path`); nothing stored'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('The key’s role cannot write'),
    409: problemResponse('An idempotency key already names a different episode; nothing stored'),
    413: problemResponse('The body is larger than 5 MiB'),
  },
});

const getEpisodes = createRoute({
  method: 'get',
  path: '/v1/episodes',
  summary: 'Page the log in commit order',
  description: 'Never skips rows of transactions still in flight: `next` can be passed as `after` forever.',
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      subject: z.string().min(1).max(512).optional(),
      after: z
        .string()
        .regex(/^\d{1,20}\.\d{1,19}$/, 'a `next` cursor from an earlier page')
        .optional()
        .openapi({ description: 'The `next` of an earlier page: "<transaction>.<position>"' }),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
  },
  responses: {
    200: { description: 'A page of episodes', content: { 'application/json': { schema: EpisodePage } } },
    400: problemResponse('Invalid query'),
    401: problemResponse('Missing, unknown or revoked key'),
  },
});

export function episodeRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  // Registered for the OpenAPI document only: the handler validates item by item itself, so
  // that a rejected batch can say which items failed and why.
  app.openAPIRegistry.registerPath(postEpisodes);
  app.post('/v1/episodes', async (c) => {
    const body = await readJson(c);
    const items = Array.isArray(body)
      ? null
      : body !== null && typeof body === 'object' && 'episodes' in body
        ? (body as { episodes: unknown }).episodes
        : [body];
    if (!Array.isArray(items)) {
      throw new ValidationError('the body is one episode object or {"episodes": [...]}');
    }
    const compile = c.req.query('compile');
    if (compile !== undefined && compile !== 'wait') throw new ValidationError('compile: the only value is "wait"');
    const single = !Array.isArray(body) && items.length === 1 && !(body !== null && typeof body === 'object' && 'episodes' in body);
    const result = await runtime.ingest(c.get('principal'), items, compile === 'wait' ? { compile: 'wait' } : {});
    // One episode posted alone is answered like an invalid one; in a batch the rest proceeds.
    const refused = result.items[0];
    if (single && refused?.status === 'refused') throw new SecretRefusedError(refused.rule ?? 'secret', refused.path ?? 'body');
    return c.json(ingestAnswer(result));
  });

  app.openapi(getEpisodes, async (c) => {
    const query = c.req.valid('query');
    const page = await runtime.listEpisodes(c.get('principal'), query);
    return c.json(page, 200);
  });
}
