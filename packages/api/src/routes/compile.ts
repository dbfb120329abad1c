import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { CompileRequest, type Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { CompileResult, problemResponse } from '../schemas.js';

const ManyResult = z
  .object({
    subjects: z.number().int(),
    results: z.array(CompileResult),
    totals: z.record(z.string(), z.number()),
    failed: z
      .array(z.object({ subject: z.string(), error: z.string() }))
      .openapi({ description: 'Subjects whose compile failed, by name, with the error; every other subject was compiled (a job also dead-letters them).' }),
  })
  .openapi('CompileManyResult');

const Job = z
  .object({
    job_id: z.string(),
    queue: z.string(),
    state: z.enum(['created', 'retry', 'active', 'completed', 'cancelled', 'failed']),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
    progress: z.object({ done: z.number().int(), total: z.number().int() }).optional(),
    created_at: z.string(),
    started_at: z.string().optional(),
    completed_at: z.string().optional(),
  })
  .openapi('Job');

const compile = createRoute({
  method: 'post',
  path: '/v1/compile',
  summary: 'Compile one subject, several, or all: synchronously, or as a job (`async: true` → 202 {job_id})',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: CompileRequest } } } },
  responses: {
    200: { description: 'The compile result (one subject) or the summed results', content: { 'application/json': { schema: z.union([CompileResult, ManyResult]) } } },
    202: { description: 'Queued; poll GET /v1/jobs/{job_id}', content: { 'application/json': { schema: z.object({ job_id: z.string() }) } } },
    400: problemResponse('Invalid request'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('The key’s role cannot compile'),
  },
});

const rebuild = createRoute({
  method: 'post',
  path: '/v1/rebuild',
  summary: 'Recompute a subject from its whole log; the same state_hash as incremental compiles',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: z.strictObject({ subject: z.string().min(1).max(512) }) } } } },
  responses: {
    200: { description: 'The rebuild result', content: { 'application/json': { schema: CompileResult } } },
    400: problemResponse('Invalid request'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('The key’s role cannot rebuild'),
  },
});

const getJob = createRoute({
  method: 'get',
  path: '/v1/jobs/{job_id}',
  summary: 'A compile job of this workspace',
  security: [{ bearer: [] }],
  request: { params: z.object({ job_id: z.string() }) },
  responses: {
    200: { description: 'The job', content: { 'application/json': { schema: Job } } },
    400: problemResponse('Not a job id'),
    404: problemResponse('No such job in this workspace'),
  },
});

export function compileRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(compile, async (c) => {
    const out = await runtime.compile(c.get('principal'), c.req.valid('json'));
    if (out.async) return c.json({ job_id: out.job_id }, 202);
    return c.json(out.result, 200);
  });
  app.openapi(rebuild, async (c) => c.json(await runtime.rebuild(c.get('principal'), c.req.valid('json').subject), 200));
  app.openapi(getJob, async (c) => c.json(await runtime.job(c.get('principal'), c.req.valid('param').job_id), 200));
}
