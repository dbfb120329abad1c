import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { EXPORT_LINE_BYTES, IMPORT_REQUEST_BYTES, ValidationError } from '@canon/core';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { ndjsonLines } from '../read-ndjson.js';
import { problemResponse } from '../schemas.js';

const NDJSON = 'application/x-ndjson';

const getExport = createRoute({
  method: 'get',
  path: '/v1/export',
  summary: "Stream the workspace's log as an export (NDJSON)",
  description:
    'Owners and maintainers. Lines: a header (format `canon-export` 1, workspace, compiler version, selection), the workspace’s own policies (never its resolver), the erasure tombstones, every episode in commit order with its actor and times, then a manifest (counts, each subject’s `state_hash`, the digest of every line). ' +
    'The selected subjects are compiled first; the lines read one snapshot. A stream cut short has no manifest, and an import refuses it. `X-Canon-Episodes` gives the number of episodes to come.',
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      subject: z.string().min(1).max(512).optional().openapi({ description: 'only this subject’s episodes (tombstones always travel)' }),
      all: z.enum(['true']).optional().openapi({ description: 'every subject (the default)' }),
    }),
  },
  responses: {
    200: { description: 'The export, one JSON object a line', content: { [NDJSON]: { schema: z.string() } } },
    400: problemResponse('Invalid query'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('Only an owner or a maintainer may export'),
    404: problemResponse('No such subject'),
  },
});

const ImportedSubjectSchema = z.object({
  subject: z.string(),
  expected: z.string().nullable().openapi({ description: 'the manifest’s state_hash' }),
  state_hash: z.string().openapi({ description: 'the state_hash here, after the import’s compile' }),
  ok: z.boolean(),
  reason: z.string().optional().openapi({ description: 'why it differs: the policies, the compiler version, episodes of this workspace’s own, keys erased here, …' }),
});

const ImportResultSchema = z
  .object({
    from_workspace: z.string(),
    workspace: z.string(),
    lines: z.number().int(),
    episodes: z.number().int(),
    created: z.number().int(),
    duplicates: z.number().int(),
    erased: z.number().int().openapi({ description: 'episodes whose key is erased here: not written' }),
    refused: z.number().int().openapi({ description: 'episodes holding a secret this workspace refuses' }),
    redacted: z.number().int().openapi({ description: 'episodes written with a secret redacted that the export held as it was' }),
    tombstones: z.object({ read: z.number().int(), added: z.number().int() }),
    policies: z.enum(['applied', 'same', 'kept', 'none']),
    subjects: z.array(ImportedSubjectSchema),
    ok: z.boolean().openapi({ description: 'every subject’s state_hash equals the manifest’s' }),
  })
  .openapi('ImportResult');

const postImport = createRoute({
  method: 'post',
  path: '/v1/import',
  summary: 'Import an export (NDJSON) into this workspace',
  description:
    `Owners only. Batches of 1,000 episodes, each in one transaction through the ingest path (validation, secrets redacted, pending compiles), keeping each episode’s actor and times. Duplicates stay duplicates; erased keys stay erased. ` +
    `A line that fails its hash or its checks is refused by number (400 \`export_invalid\`, \`line\`) and nothing of its batch is written; the last batch waits for the manifest, so a truncated body writes none of it (earlier batches stay: importing again is idempotent). ` +
    `Ends by compiling every subject of the manifest and comparing state hashes. Bounds: ${EXPORT_LINE_BYTES} bytes a line, ${IMPORT_REQUEST_BYTES} bytes a body.`,
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      policies: z.enum(['keep']).optional().openapi({ description: 'this workspace states policies that differ from the export’s: import under this workspace’s anyway (otherwise 409 `policies_differ`)' }),
    }),
    body: { required: true, content: { [NDJSON]: { schema: z.string() } } },
  },
  responses: {
    200: { description: 'Imported; per subject, its state_hash against the manifest’s', content: { 'application/json': { schema: ImportResultSchema } } },
    400: problemResponse('A line that is not part of a whole, untouched export (`export_invalid`, naming `line`)'),
    401: problemResponse('Missing, unknown or revoked key'),
    403: problemResponse('Only an owner may import'),
    409: problemResponse('A key this workspace holds with other content (`key_conflict`, naming `line`); policies that differ (`policies_differ`); tombstones bound to another workspace id (`workspace_mismatch`)'),
    413: problemResponse('A line or the body is too large'),
    415: problemResponse('Not application/x-ndjson'),
  },
});

export function exportRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  // Registered for the OpenAPI document: the handlers stream, which the typed responses cannot.
  app.openAPIRegistry.registerPath(getExport);
  app.get('/v1/export', async (c) => {
    const query = getExport.request.query.safeParse(c.req.query());
    if (!query.success) {
      const issue = query.error.issues[0]!;
      throw new ValidationError(`${issue.path.join('.') || 'query'}: ${issue.message}`);
    }
    const opened = await runtime.exportLog(c.get('principal'), query.data.subject !== undefined ? { subject: query.data.subject } : { all: true });
    const lines = opened.lines;
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await lines.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(`${next.value}\n`));
        } catch (err) {
          // Cut short: the client gets no manifest, and an import refuses what it got.
          controller.error(err);
        }
      },
      async cancel() {
        await lines.return(undefined);
      },
      // Nothing is read before the client asks: a response never read opens no snapshot.
    }, { highWaterMark: 0 });
    return new Response(stream, { status: 200, headers: { 'content-type': NDJSON, 'x-canon-episodes': String(opened.episodes) } });
  });

  app.openAPIRegistry.registerPath(postImport);
  app.post('/v1/import', async (c) => {
    const keep = c.req.query('policies');
    if (keep !== undefined && keep !== 'keep') throw new ValidationError('policies: the only value is "keep"');
    const result = await runtime.importLog(c.get('principal'), ndjsonLines(c), { keepPolicies: keep === 'keep' });
    return c.json(result, 200);
  });
}
