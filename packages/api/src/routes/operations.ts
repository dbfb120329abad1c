import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse } from '../schemas.js';

const Schedule = z.object({ cron: z.string().min(1).max(200), time_zone: z.string().min(1).max(100) }).openapi('CompileSchedule');
const ScheduleChange = z
  .object({
    cron: z.string().min(1).max(200),
    time_zone: z.string().min(1).max(100).optional().openapi({ description: 'IANA zone; without it the zone the schedule has stays (UTC when it has none)' }),
  })
  .openapi('CompileScheduleChange');

const verify = createRoute({
  method: 'post',
  path: '/v1/verify',
  summary: 'For CI: compile, compile again expecting zeros, recompute from the log expecting the same state_hash',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: z.strictObject({ subject: z.string().min(1).max(512) }) } } } },
  responses: {
    200: { description: 'The report; `ok: false` lists what differed', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
    403: problemResponse('The key’s role cannot compile'),
  },
});

const getSchedule = createRoute({
  method: 'get',
  path: '/v1/schedule',
  summary: 'The compile schedule of the key’s workspace (its own, or the default until its owner sets one)',
  security: [{ bearer: [] }],
  responses: { 200: { description: 'The schedule', content: { 'application/json': { schema: Schedule.nullable() } } } },
});

const putSchedule = createRoute({
  method: 'put',
  path: '/v1/schedule',
  summary: 'Change the compile schedule of the key’s workspace (owner); other workspaces keep theirs',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: ScheduleChange } } } },
  responses: {
    200: { description: 'The schedule now', content: { 'application/json': { schema: Schedule } } },
    400: problemResponse('Not a valid cron expression or time zone'),
    403: problemResponse('Only an owner may change it'),
  },
});

const deadLetters = createRoute({
  method: 'get',
  path: '/v1/jobs/dead',
  summary: 'Compile jobs of this workspace that exhausted their retries',
  security: [{ bearer: [] }],
  responses: {
    200: {
      description: 'Dead letters',
      content: { 'application/json': { schema: z.object({ jobs: z.array(z.object({ job_id: z.string(), subject: z.string(), failed_at: z.string(), error: z.unknown() })) }) } },
    },
  },
});

const redrive = createRoute({
  method: 'post',
  path: '/v1/jobs/dead/redrive',
  summary: 'Put this workspace’s dead letters back on the compile queue',
  security: [{ bearer: [] }],
  responses: {
    200: { description: 'How many moved', content: { 'application/json': { schema: z.object({ redriven: z.number().int() }) } } },
    403: problemResponse('The key’s role cannot redrive'),
  },
});

export function operationRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(verify, async (c) => c.json({ ...(await runtime.verify(c.get('principal'), c.req.valid('json').subject)) }, 200));
  app.openapi(getSchedule, async (c) => c.json(await runtime.schedule(c.get('principal')), 200));
  app.openapi(putSchedule, async (c) => c.json(await runtime.setSchedule(c.get('principal'), c.req.valid('json')), 200));
  app.openapi(deadLetters, async (c) => c.json({ jobs: await runtime.deadLetters(c.get('principal')) }, 200));
  app.openapi(redrive, async (c) => c.json({ redriven: await runtime.redrive(c.get('principal')) }, 200));
}
