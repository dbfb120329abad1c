import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { ConflictSchema, WriteResultSchema } from '../memory-schemas.js';
import { problemResponse } from '../schemas.js';


const listConflicts = createRoute({
  method: 'get',
  path: '/v1/conflicts',
  summary: 'Open disagreements (memories holding two or more values now), with every side and its sources',
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      subject: z.string().min(1).max(512).optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
      after: z.string().min(1).max(2048).optional().openapi({ description: 'The `next` of the page before.' }),
    }),
  },
  responses: {
    200: {
      description: 'A page of open conflicts in subject and key order; `next` names the page after it, null at the end',
      content: { 'application/json': { schema: z.object({ conflicts: z.array(ConflictSchema), next: z.string().nullable() }) } },
    },
    400: problemResponse('Invalid query'),
  },
});

const resolve = createRoute({
  method: 'post',
  path: '/v1/memories/{id}/resolution',
  summary: 'Resolve the conflict a memory holds: a correction episode naming the claims of every side it settles, compiled at once',
  description: 'Needs standing at least the policy’s minimum role and every side’s (403 otherwise); 409 when the memory holds no open conflict.',
  security: [{ bearer: [] }],
  request: {
    params: z.object({ id: z.string().min(1).max(128) }),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              value: z.unknown(),
              reason: z.string().min(1).max(2000),
              idempotency_key: z.string().min(1).max(512).optional(),
            })
            .strict()
            .openapi('Resolution'),
        },
      },
    },
  },
  responses: {
    200: { description: 'The memory after', content: { 'application/json': { schema: WriteResultSchema } } },
    400: problemResponse('Invalid resolution'),
    403: problemResponse('The key’s role lacks the standing to settle it'),
    404: problemResponse('No such memory visible to this key'),
    409: problemResponse('The memory has no open conflict'),
    503: problemResponse('The subject is busy; retry after Retry-After seconds'),
  },
});

export function conflictRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(listConflicts, async (c) => c.json(await runtime.conflicts(c.get('principal'), c.req.valid('query')), 200));
  app.openapi(resolve, async (c) => {
    const out = await runtime.resolve(c.get('principal'), c.req.valid('param').id, c.req.valid('json'));
    c.header('ETag', `"${out.memory.etag}"`);
    return c.json(out as z.infer<typeof WriteResultSchema>, 200);
  });
}
