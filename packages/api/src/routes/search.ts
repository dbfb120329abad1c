import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse } from '../schemas.js';

const SearchResult = z
  .object({
    memory_id: z.string(),
    subject: z.string(),
    key: z.string(),
    predicate: z.string(),
    qualifiers: z.record(z.string(), z.string()),
    scope: z.enum(['workspace', 'personal']),
    value: z.unknown(),
    conditions: z.array(z.string()),
    valid_from: z.string(),
    valid_to: z.string().nullable(),
    value_status: z.enum(['in_force', 'superseded', 'overruled', 'disputed', 'retracted']),
    current: z.boolean(),
    memory_status: z.enum(['current', 'conflicted', 'tombstoned', 'scheduled_only', 'empty']),
    needs_verification: z.boolean(),
    match: z.enum(['text', 'near']),
    rank: z.number(),
    similarity: z.number(),
  })
  .openapi('SearchResult');

const DocumentResult = z
  .object({
    episode_id: z.string(),
    subject: z.string(),
    source: z.string(),
    source_ref: z.string().nullable(),
    occurred_at: z.string(),
    snippet: z.string(),
    rank: z.number(),
  })
  .openapi('DocumentResult');

const search = createRoute({
  method: 'get',
  path: '/v1/search',
  summary: 'Lexical search over current memories: full-text (ranked), then near matches by trigram similarity',
  description:
    'Ranking: full-text matches (`websearch_to_tsquery`, no stemming) by `ts_rank`, then near matches (typos) by pg_trgm word similarity, ties by memory id. ' +
    'Every candidate is re-checked against its memory’s timeline: a superseded or overruled value comes back only with `include_history=true`, marked `current: false`. ' +
    '`documents`: scanned files whose text matches (full-text, the version in force of each file only), with the best fragment (matched words between « and »): prose and code that state no fact are searchable there, not memories.',
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      q: z.string().min(1).max(512),
      subject: z.string().min(1).max(512).optional(),
      limit: z.coerce.number().int().min(1).max(100).default(20),
      include_history: z.enum(['true', 'false']).default('false'),
    }),
  },
  responses: {
    200: { description: 'Matching values, best first', content: { 'application/json': { schema: z.object({ results: z.array(SearchResult), documents: z.array(DocumentResult) }) } } },
    400: problemResponse('Invalid query'),
    401: problemResponse('Missing, unknown or revoked key'),
  },
});

export function searchRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(search, async (c) => {
    const query = c.req.valid('query');
    return c.json(await runtime.search(c.get('principal'), { ...query, include_history: query.include_history === 'true' }), 200);
  });
}
