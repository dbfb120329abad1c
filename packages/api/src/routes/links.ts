import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { LinkResultSchema } from '../memory-schemas.js';
import { problemResponse } from '../schemas.js';

const NUL_FREE = (s: string) => !s.includes('\u0000');
const Id = z.string().min(1).max(128).refine(NUL_FREE, 'must not contain U+0000');

const LinkBody = z
  .object({
    memories: z.tuple([Id, Id]).openapi({ description: 'two memory ids of one subject and scope (a key linked away is named by its own id)' }),
    same: z.boolean().openapi({ description: 'true: one fact; false: distinct facts (silences the candidate, and undoes an earlier link of the pair)' }),
    idempotency_key: z.string().min(1).max(512).refine(NUL_FREE, 'must not contain U+0000'),
    reason: z.string().min(1).max(2000).refine(NUL_FREE, 'must not contain U+0000').optional(),
  })
  .strict()
  .openapi('Link');


const link = createRoute({
  method: 'post',
  path: '/v1/links',
  summary: 'State that two memories are one fact (or distinct): an episode of kind link, compiled at once',
  description:
    'Linked keys fold as one memory under the smaller key, with the usual decision table across them; the other id still finds it. ' +
    'Per pair, the link of highest standing, then the latest, is in force: unlinking is a later `same: false`. Below member standing the link is a proposal.',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: LinkBody } } } },
  responses: {
    200: { description: 'Recorded (or, for a retried key, the committed result); the first memory after', content: { 'application/json': { schema: LinkResultSchema } } },
    400: problemResponse('Invalid link: unknown shape, the same memory twice, or memories of different subjects or scopes'),
    403: problemResponse('The key’s role cannot write'),
    404: problemResponse('No such memory visible to this key'),
    409: problemResponse('The idempotency key names a different episode'),
    503: problemResponse('The subject is busy; retry after Retry-After seconds'),
  },
});

export function linkRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(link, async (c) => {
    const out = await runtime.link(c.get('principal'), c.req.valid('json'));
    return c.json(out as z.infer<typeof LinkResultSchema>, 200);
  });
}
