import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { UnauthorizedError, ValidationError } from '@canon/core';
import { ChangesParams, Cursor, type Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemTypeUri } from '../problem.js';
import { problemResponse } from '../schemas.js';

const SideSchema = z.object({ status: z.enum(['current', 'conflicted', 'tombstoned', 'scheduled_only', 'empty']), values: z.array(z.unknown()) });

export const ChangeEventSchema = z
  .object({
    cursor: z.string().openapi({ description: 'its place in commit order; `after` (or the SSE `Last-Event-ID`) resumes behind it' }),
    memory_id: z.string(),
    subject: z.string(),
    key: z.string(),
    predicate: z.string(),
    scope: z.enum(['workspace', 'personal']),
    change: z.enum(['added', 'removed', 'dispute_opened', 'dispute_closed', 'value', 'status', 'erased']),
    before: SideSchema.nullable(),
    after: SideSchema.nullable(),
    episode_id: z.string().nullable(),
    compile_run_id: z.string().nullable(),
    changed_at: z.string(),
  })
  .openapi('ChangeEvent');

const getChanges = createRoute({
  method: 'get',
  path: '/v1/changes',
  summary: 'What compiles changed, after a cursor: a JSON page, or a live stream (server-sent events)',
  description:
    'One event per memory whose view a compile changed (added, removed, value, status, dispute opened or closed; `erased` when an erasure changed it, without what it read before), in commit order, only what the key may see. ' +
    'With `Accept: text/event-stream`: the backlog, then each new change as it settles, as SSE events `change` whose `id` is the cursor (a reconnecting client resumes from `Last-Event-ID`), a comment every 15 s while quiet; the stream ends when the client goes or the server stops, or with an event `revoked` (a problem as its data) when its key is revoked or its user erased while it follows. ' +
    'Otherwise a JSON page `{changes, next}`: ask again with `after=next`.',
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      after: z.string().max(48).optional().openapi({ description: 'a cursor (`<tx>.<position>`) from `next` or an event id; absent: from the start' }),
      subject: z.string().min(1).max(512).optional(),
      predicate: z.string().min(1).max(512).optional(),
      limit: z.string().optional().openapi({ description: 'changes per page (1–1000, default 100)' }),
    }),
  },
  responses: {
    200: {
      description: 'A page (JSON) or the stream (text/event-stream)',
      content: {
        'application/json': { schema: z.object({ changes: z.array(ChangeEventSchema), next: z.string() }) },
        'text/event-stream': { schema: z.string() },
      },
    },
    400: problemResponse('A malformed cursor, subject, predicate or limit'),
    401: problemResponse('Missing, unknown or revoked key'),
  },
});

export function changeRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  // Registered for the OpenAPI document: the stream is written by hand, which typed responses cannot.
  app.openAPIRegistry.registerPath(getChanges);
  app.get('/v1/changes', async (c) => {
    const query = { ...c.req.query() };
    const lastEventId = c.req.header('last-event-id');
    // A reconnecting EventSource names where it stopped in this header, not in the URL.
    if (query['after'] === undefined && lastEventId !== undefined && lastEventId !== '') {
      if (!Cursor.safeParse(lastEventId).success) throw new ValidationError('Last-Event-ID: not a cursor of the change feed');
      query['after'] = lastEventId;
    }
    const parsed = ChangesParams.safeParse(query);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ index: 0, path: i.path.join('.') || 'query', message: i.message }));
      throw new ValidationError(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
    }
    const principal = c.get('principal');
    if (!(c.req.header('accept') ?? '').includes('text/event-stream')) return c.json(await runtime.changes(principal, parsed.data), 200);
    return streamSSE(c, async (stream) => {
      const gone = new AbortController();
      stream.onAbort(() => gone.abort());
      const onIdle = () => stream.write(': heartbeat\n\n').then(() => undefined);
      await stream.write(': following\n\n');
      try {
        for await (const e of runtime.followChanges(principal, parsed.data, { signal: gone.signal, onIdle })) {
          await stream.writeSSE({ id: e.cursor, event: 'change', data: JSON.stringify(e) });
        }
      } catch (err) {
        // The key was revoked while it followed (by hand, or with its user's erasure): the stream
        // says why in its last event and ends; a reconnect with that key is a 401.
        if (!(err instanceof UnauthorizedError)) throw err;
        await stream.writeSSE({ event: 'revoked', data: JSON.stringify({ type: problemTypeUri('unauthorized'), status: 401, detail: err.message }) });
      }
    });
  });
}
