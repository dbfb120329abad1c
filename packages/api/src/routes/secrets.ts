import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse, Redaction } from '../schemas.js';

const SecretFinding = z
  .object({
    episode_id: z.string(),
    source: z.string(),
    idempotency_key: z.string().openapi({ description: 'as stored, with any secret it holds replaced by its marker' }),
    subject: z.string().openapi({ description: 'as stored, with any secret it holds replaced by its marker' }),
    log_position: z.string(),
    secrets: z.array(Redaction).openapi({ description: 'each secret: the rule and the field — never the secret' }),
  })
  .openapi('SecretFinding');

const SecretScan = z
  .object({
    findings: z.array(SecretFinding),
    scanned: z.number().int().openapi({ description: 'episodes read by this answer' }),
    next: z.string().nullable().openapi({ description: 'pass as `after` to go on; null at the end of the log' }),
  })
  .openapi('SecretScan');

const listSecrets = createRoute({
  method: 'get',
  path: '/v1/secrets',
  summary: 'Episodes of the log that hold a detected secret (owner, maintainer)',
  description:
    'Scans the stored log with the rules ingest uses — for episodes stored before redaction, or that older rules missed — reading at most `limit` episodes per answer in order; `next` resumes. ' +
    'Names each episode (id, source, key, subject) and each secret by rule and field, never its value. Erase what it finds with `POST /v1/erasures` or `DELETE /v1/subjects/{subject}`.',
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      subject: z.string().min(1).max(512).optional(),
      after: z.string().max(64).optional(),
      limit: z.coerce.number().int().min(1).max(10_000).default(2000),
    }),
  },
  responses: {
    200: { description: 'What the scanned part of the log holds', content: { 'application/json': { schema: SecretScan } } },
    400: problemResponse('Invalid query or cursor'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('Only an owner or a maintainer may scan for secrets'),
  },
});

export function secretRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(listSecrets, async (c) => c.json(await runtime.secrets(c.get('principal'), c.req.valid('query')), 200));
}
