import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse } from '../schemas.js';

const ErasureSchema = z
  .object({
    erasure_id: z.string(),
    target_kind: z.enum(['subject', 'user']),
    episodes: z.number().int(),
    memories: z.number().int(),
    subjects: z.array(z.string()).openapi({ description: 'The subjects erased, or touched by a user\'s erasure, that the caller may see' }),
    rebuilt: z.array(z.record(z.string(), z.unknown())),
    personal_subjects: z.number().int().openapi({ description: 'By user: subjects touched that hold only that person\'s personal episodes, counted, not named' }),
    keys_revoked: z.number().int().openapi({ description: 'By user: the user\'s keys of the workspace, revoked and no longer naming them' }),
    erased_at: z.string(),
  })
  .openapi('Erasure');

const responses = {
  200: { description: 'Erased; the audit row’s id', content: { 'application/json': { schema: ErasureSchema } } },
  400: problemResponse('Invalid target'),
  403: problemResponse('Only an owner or a maintainer may erase'),
  404: problemResponse('Nothing to erase'),
};

const eraseSubject = createRoute({
  method: 'delete',
  path: '/v1/subjects/{subject}',
  summary: 'Erase a subject: its episodes and everything derived, in one audited transaction; re-ingesting its keys answers `erased`',
  security: [{ bearer: [] }],
  request: { params: z.object({ subject: z.string().min(1).max(512) }) },
  responses,
});

const eraseAny = createRoute({
  method: 'post',
  path: '/v1/erasures',
  summary: 'Erase a subject, or every episode a user wrote or owns (the subjects they touched are rebuilt from what remains)',
  security: [{ bearer: [] }],
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .union([z.object({ subject: z.string().min(1).max(512) }).strict(), z.object({ user: z.string().min(1).max(512) }).strict()], {
              // Either shape failing would say only "Invalid input": say what one of them is.
              error: 'give one of subject or user, 1–512 characters: {"subject": "service:billing"} or {"user": "alice"}',
            })
            .openapi('ErasureTarget'),
        },
      },
    },
  },
  responses,
});

export function erasureRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(eraseSubject, async (c) => c.json(await runtime.erase(c.get('principal'), { subject: c.req.valid('param').subject }), 200));
  app.openapi(eraseAny, async (c) => c.json(await runtime.erase(c.get('principal'), c.req.valid('json')), 200));
}
