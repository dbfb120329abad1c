import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ContextRequest, type Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { readJson } from '../read-json.js';
import { ContextBundle } from '../memory-schemas.js';
import { problemResponse } from '../schemas.js';


const context = createRoute({
  method: 'post',
  path: '/v1/context',
  summary: 'A context bundle of a subject for a task, within a token budget: same inputs at the same instant, same bytes',
  description:
    'The memories holding at `as_of` (default: now, never printed), ranked by words shared with the task, then trigram similarity, then recency, then memory id; ' +
    'one line each until the next would pass `max_tokens`. Tokens are estimated as ceil(code points / 4) per line, newline included. ' +
    'Open disagreements are stated as `DISPUTED:` lines and listed in `conflicts`.',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: ContextRequest } } } },
  responses: {
    200: { description: 'The bundle', content: { 'application/json': { schema: ContextBundle } } },
    400: problemResponse('Invalid request: missing task, max_tokens outside 1..100000, an invalid as_of, malformed JSON'),
    401: problemResponse('Missing, unknown or revoked key'),
  },
});

export function contextRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  // Registered for the OpenAPI document only: the body is the door's parsed value (readJson;
  // malformed JSON is the door's 400), validated once, by the runtime, with the same schema.
  app.openAPIRegistry.registerPath(context);
  app.post('/v1/context', async (c) => c.json(await runtime.context(c.get('principal'), (await readJson(c)) as ContextRequest)));
}
