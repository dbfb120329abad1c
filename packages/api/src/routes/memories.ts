import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse } from '../schemas.js';
import { MemoryDetailSchema, MemorySummarySchema as MemorySummary, RecallQuery, SubjectRecallQuery } from '../memory-schemas.js';


const Subject = z.object({
  subject: z.string(),
  episodes: z.number().int(),
  memories: z.number().int(),
  pending: z.number().int(),
  open_conflicts: z.number().int(),
});

const listSubjects = createRoute({
  method: 'get',
  path: '/v1/subjects',
  summary: 'Subjects with episode, memory, pending and open-conflict counts',
  security: [{ bearer: [] }],
  responses: { 200: { description: 'Subjects', content: { 'application/json': { schema: z.object({ subjects: z.array(Subject) }) } } } },
});

const subjectMemories = createRoute({
  method: 'get',
  path: '/v1/subjects/{subject}/memories',
  summary: 'Memories of a subject at an instant (now, or as_of), as known now or at known_at: status, current value(s), scheduled changes, conflicts',
  description: 'A page at a time, in key order: pass `next` as `after` until it is null.',
  security: [{ bearer: [] }],
  request: {
    params: z.object({ subject: z.string().min(1).max(512) }),
    query: SubjectRecallQuery,
  },
  responses: {
    200: {
      description: 'The view at that instant',
      content: { 'application/json': { schema: z.object({ subject: z.string(), as_of: z.string(), known_at: z.string().nullable(), memories: z.array(MemorySummary), next: z.string().nullable() }) } },
    },
    400: problemResponse('Invalid instant'),
  },
});

const getMemory = createRoute({
  method: 'get',
  path: '/v1/memories/{id}',
  summary: 'One memory: its timeline, evidence with source refs, decisions, revision and ETag',
  security: [{ bearer: [] }],
  request: { params: z.object({ id: z.string().min(1).max(128) }), query: RecallQuery },
  responses: {
    200: { description: 'The memory (refolded from what was ingested by known_at, if given)', content: { 'application/json': { schema: MemoryDetailSchema } } },
    400: problemResponse('Invalid instant'),
    404: problemResponse('No such memory visible to this key (or none known at known_at)'),
  },
});

export function memoryRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(listSubjects, async (c) => c.json({ subjects: await runtime.subjects(c.get('principal')) }, 200));
  app.openapi(subjectMemories, async (c) => {
    const { subject } = c.req.valid('param');
    return c.json(await runtime.memories(c.get('principal'), subject, c.req.valid('query')), 200);
  });
  app.openapi(getMemory, async (c) => {
    const memory = await runtime.memory(c.get('principal'), c.req.valid('param').id, c.req.valid('query'));
    c.header('ETag', `"${memory.etag}"`);
    return c.json(memory, 200);
  });
}
