import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { LIMITS } from '@canon/core';
import { ingestAnswer, type Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { IngestResponse, problemResponse } from '../schemas.js';

// The same rule as checkInstanceId, so that the document says it and a bad id is a 400 here.
const InstanceParam = z.object({
  instance_id: z
    .string()
    .regex(/^[^\s\u0000-\u001f\u007f]{1,200}$/u, '1 to 200 printable characters, no spaces')
    .openapi({ description: 'The connector instance, URL-encoded: `workspace:<root id>`, `git:<repo id>`, `github:<owner>/<repo>` or any id of its own' }),
});

// Any JSON value (the depth and string rules of every body hold); stated even when null, so
// that a client that forgot `expected` is told rather than taken to have read no cursor.
const cursorOf = (description: string) =>
  z
    .unknown()
    .refine((v) => v !== undefined, 'required: a JSON value, or null')
    .openapi({ description });

const CursorView = z
  .object({
    workspace_id: z.string(),
    instance_id: z.string(),
    cursor: z.unknown().openapi({ description: 'As the connector wrote it (any JSON value); null: no batch committed yet, or the cursor was reset' }),
  })
  .openapi('ConnectorCursor');

const BatchRequest = z
  .strictObject({
    episodes: z
      .array(z.unknown())
      .max(LIMITS.batchSize)
      .openapi({ description: `Up to ${LIMITS.batchSize} episodes, each as for POST /v1/episodes; none: only the cursor moves` }),
    cursor: cursorOf('The cursor after this batch'),
    expected: cursorOf('The cursor the run read or last saved (null: it read none)'),
  })
  .openapi('ConnectorBatch');

const BatchResponse = IngestResponse.extend({
  subjects: z.array(z.string()).openapi({ description: 'Distinct subjects the batch created episodes of: what a compile must visit' }),
}).openapi('ConnectorBatchResponse');

const getCursor = createRoute({
  method: 'get',
  path: '/v1/connectors/{instance_id}/cursor',
  summary: 'The cursor of a connector instance in the key’s workspace, where its next run resumes',
  security: [{ bearer: [] }],
  request: { params: InstanceParam },
  responses: {
    200: { description: 'The cursor', content: { 'application/json': { schema: CursorView } } },
    400: problemResponse('Invalid instance id'),
    401: problemResponse('Missing, unknown or revoked key'),
  },
});

const postBatch = createRoute({
  method: 'post',
  path: '/v1/connectors/{instance_id}/batches',
  summary: 'Append a connector batch and move the instance’s cursor, in one transaction',
  description:
    'The episodes are appended as by POST /v1/episodes, with the key’s principal: its role’s standing, its user as the actor, and a connector’s source (`git`, `github`, `workspace`) only with a key bound to it (`canon keys create --source …`). ' +
    'In the same transaction the cursor moves from `expected` to `cursor`; if another run moved it since, 409 `cursor_moved` and nothing is stored: read the cursor again and resume from there.',
  security: [{ bearer: [] }],
  request: { params: InstanceParam, body: { required: true, content: { 'application/json': { schema: BatchRequest } } } },
  responses: {
    200: { description: 'Every item stored or recognised, and the cursor saved', content: { 'application/json': { schema: BatchResponse } } },
    400: problemResponse('Invalid instance id, body or items (`issues` names each item and why); nothing stored'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('The key’s role cannot write, or it is not bound to a connector source an item names'),
    409: problemResponse('`cursor_moved`: the cursor is no longer `expected`; or `key_conflict`: an idempotency key already names a different episode. Nothing stored'),
    413: problemResponse('The body is larger than 5 MiB'),
  },
});

export function connectorRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(getCursor, async (c) => {
    const view = await runtime.connectorCursor(c.get('principal'), c.req.valid('param').instance_id);
    return c.json(view, 200);
  });

  app.openapi(postBatch, async (c) => {
    const body = c.req.valid('json');
    const result = await runtime.connectorBatch(c.get('principal'), {
      instanceId: c.req.valid('param').instance_id,
      episodes: body.episodes,
      cursor: body.cursor,
      expected: body.expected,
    });
    return c.json({ ...ingestAnswer(result), subjects: result.subjects }, 200);
  });
}
