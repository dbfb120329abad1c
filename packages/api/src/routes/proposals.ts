import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { WriteResultSchema } from '../memory-schemas.js';
import { problemResponse } from '../schemas.js';

const NUL_FREE = (s: string) => !s.includes('\u0000');

const ProposalBody = z
  .object({
    expected_revision: z.number().int().min(0).optional().openapi({ description: 'the revision read; or send If-Match with the ETag (required for a memory a link named: its revision can repeat after an unlink)' }),
    idempotency_key: z.string().min(1).max(512).refine(NUL_FREE, 'must not contain U+0000'),
    value: z.unknown().optional(),
    conditions: z.array(z.string().min(1).max(512)).max(100).optional(),
    retract: z.boolean().optional(),
    correction: z.boolean().optional(),
    effective_from: z.string().max(64).optional(),
    reason: z.string().min(1).max(2000).refine(NUL_FREE, 'must not contain U+0000'),
  })
  .strict()
  .openapi('Proposal');

const params = z.object({ id: z.string().min(1).max(128) });
const ifMatch = z.object({ 'if-match': z.string().max(256).optional() });

const responses = {
  200: { description: 'Applied (or, for a retried key, the committed result); the memory after, with its ETag', content: { 'application/json': { schema: WriteResultSchema } } },
  400: problemResponse('Invalid proposal'),
  403: problemResponse('The key’s role cannot write'),
  404: problemResponse('No such memory visible to this key'),
  409: problemResponse('The idempotency key names a different proposal'),
  412: problemResponse('Stale revision or ETag: `current` holds the memory as it is now'),
  503: problemResponse('The subject is busy; retry after Retry-After seconds'),
};

const propose = createRoute({
  method: 'post',
  path: '/v1/memories/{id}/proposals',
  summary: 'A conditional change of a memory: stored as an episode and compiled at once, if the memory is still at expected_revision',
  description:
    'A `value` equal to the current one with `conditions` enriches it; a different value is a change effective now (or at `effective_from`), ' +
    'or a correction with `correction: true`; `retract: true` ends the value. The fold still applies standing: the answer’s `decision` says what it made of the claim.',
  security: [{ bearer: [] }],
  request: { params, headers: ifMatch, body: { required: true, content: { 'application/json': { schema: ProposalBody } } } },
  responses,
});

const patch = createRoute({
  method: 'patch',
  path: '/v1/memories/{id}',
  summary: 'The same conditional change with `If-Match: "<etag>"` (required) instead of expected_revision',
  security: [{ bearer: [] }],
  request: {
    params,
    headers: z.object({
      'if-match': z
        .string({ error: (issue) => (issue.input === undefined ? 'required: the memory\'s ETag in quotes, as GET /v1/memories/{id} sends it (or use POST …/proposals with expected_revision)' : undefined) })
        .min(1)
        .max(256),
    }),
    body: { required: true, content: { 'application/json': { schema: ProposalBody } } },
  },
  responses,
});

export function proposalRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(propose, async (c) => {
    const out = await runtime.propose(c.get('principal'), c.req.valid('param').id, c.req.valid('json'), { if_match: c.req.header('if-match') });
    c.header('ETag', `"${out.memory.etag}"`);
    return c.json(out as z.infer<typeof WriteResultSchema>, 200);
  });
  app.openapi(patch, async (c) => {
    const out = await runtime.propose(c.get('principal'), c.req.valid('param').id, c.req.valid('json'), { if_match: c.req.header('if-match') });
    c.header('ETag', `"${out.memory.etag}"`);
    return c.json(out as z.infer<typeof WriteResultSchema>, 200);
  });
}
