import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { DEFAULT_MAX_SIDES, ROLES } from '@canon/core';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';
import { problemResponse } from '../schemas.js';

const PolicySchema = z
  .object({
    cardinality: z.enum(['one', 'many']),
    mode: z.enum(['supersede', 'flag']),
    min_role: z.enum(ROLES),
    max_sides: z.number().int().min(2).max(64).optional().openapi({ description: `open sides of a dispute before further values become its evidence (default ${DEFAULT_MAX_SIDES})` }),
  })
  .strict()
  .openapi('Policy');

const LinkPolicySchema = z
  .object({ min_role: z.enum(ROLES).openapi({ description: 'the least role whose link is in force; below it a link is a proposal (default member)' }) })
  .strict()
  .openapi('LinkPolicy');

const ResolverPolicySchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2048).openapi({ description: 'where Canon posts candidate pairs (canon-resolver/1); its host must be one the server allows (CANON_RESOLVER_HOSTS)' }),
    key_id: z.uuid().openapi({ description: "the id of this workspace's API key whose standing the resolver's answers carry (not above the caller's role)" }),
    timeout_ms: z.number().int().min(100).max(120_000).optional().openapi({ description: 'default 5000' }),
  })
  .strict()
  .openapi('ResolverPolicy');

const WorkspacePoliciesSchema = z
  .object({
    defaults: PolicySchema.optional(),
    resolver: ResolverPolicySchema.optional(),
    links: LinkPolicySchema.optional(),
    predicates: z.record(z.string().min(1).max(512), PolicySchema).optional(),
    time_zone: z.string().min(1).max(100).optional(),
    secrets: z.enum(['redact', 'refuse']).optional().openapi({
      description: 'what ingest does with an item holding a secret: replace it by a marker (`redact`, the default) or reject the item (`refuse`). Not part of the fingerprint: it rebuilds nothing',
    }),
  })
  .strict()
  .openapi('WorkspacePolicies');

const EffectiveSchema = z.object({ defaults: PolicySchema, predicates: z.record(z.string(), PolicySchema), time_zone: z.string(), links: LinkPolicySchema.optional() });

const PoliciesSchema = z
  .object({
    own: WorkspacePoliciesSchema.nullable(),
    effective: EffectiveSchema,
    fingerprint: z.string(),
    secrets: z.enum(['redact', 'refuse']).openapi({ description: 'what ingest does with a secret in this workspace' }),
  })
  .openapi('Policies');

const PolicyChangeSchema = PoliciesSchema.extend({
  changed: z.boolean(),
  rebuild: z.object({
    subjects: z.array(z.string()),
    mode: z.enum(['queued', 'compiled', 'none']),
    results: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
}).openapi('PolicyChange');

const getPolicies = createRoute({
  method: 'get',
  path: '/v1/policies',
  summary: 'The workspace’s predicate policies: its own statement, what compiles use, and their fingerprint',
  security: [{ bearer: [] }],
  responses: { 200: { description: 'Policies', content: { 'application/json': { schema: PoliciesSchema } } } },
});

const putPolicies = createRoute({
  method: 'put',
  path: '/v1/policies',
  summary: 'Replace the workspace’s own policies (owner, maintainer); affected subjects are rebuilt',
  description:
    'Affected: subjects holding memories of a predicate whose effective policy changed, or every subject when the defaults or the time zone changed. ' +
    'With a job queue they are queued for a compile (which rebuilds a subject compiled under another fingerprint); without one they are rebuilt before the answer.',
  security: [{ bearer: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: WorkspacePoliciesSchema } } } },
  responses: {
    200: { description: 'Saved, with the rebuilds it set off', content: { 'application/json': { schema: PolicyChangeSchema } } },
    400: problemResponse('Invalid policies'),
    403: problemResponse('Only an owner or a maintainer may change policies'),
  },
});

const PreviewSideSchema = z.object({ status: z.enum(['current', 'conflicted', 'tombstoned', 'scheduled_only', 'empty']), values: z.array(z.unknown()) });

const PreviewSchema = z
  .object({
    as_of: z.string(),
    compiler_version: z.string(),
    fingerprint: z.object({ now: z.string(), proposed: z.string() }),
    subjects: z.number().int().openapi({ description: 'subjects folded that the key may see' }),
    changed: z.number().int().openapi({ description: 'memories that would change' }),
    changes: z.array(
      z.object({
        subject: z.string(),
        memory_id: z.string(),
        key: z.string(),
        predicate: z.string(),
        change: z.enum(['added', 'removed', 'dispute_opened', 'dispute_closed', 'value', 'status', 'history']),
        before: PreviewSideSchema.nullable(),
        after: PreviewSideSchema.nullable(),
      }),
    ),
    truncated: z.boolean().openapi({ description: 'more memories changed than `changes` lists (1,000)' }),
  })
  .openapi('Preview');

const preview = createRoute({
  method: 'post',
  path: '/v1/preview',
  summary: 'What compiling would change, without writing: under proposed policies, or (without them) under this build’s compiler',
  description:
    'Folds the subjects the proposed policies can affect (every subject without a proposal) from the log alone, in one snapshot, and compares them with the memories stored now. Nothing is written. Owner or maintainer.',
  security: [{ bearer: [] }],
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          // Checked as PUT /v1/policies checks its body (400 naming the field); declared loosely
          // here so the WorkspacePolicies component keeps one use in the document.
          schema: z.strictObject({ policies: z.record(z.string(), z.unknown()).optional().openapi({ description: 'proposed workspace policies, as PUT /v1/policies takes them' }) }),
        },
      },
    },
  },
  responses: {
    200: { description: 'The memories that would change and how', content: { 'application/json': { schema: PreviewSchema } } },
    400: problemResponse('Invalid policies'),
    403: problemResponse('Only an owner or a maintainer may preview a change'),
  },
});

export function policyRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.openapi(preview, async (c) => c.json(await runtime.preview(c.get('principal'), c.req.valid('json')), 200));
  app.openapi(getPolicies, async (c) => c.json(await runtime.policies(c.get('principal')), 200));
  app.openapi(putPolicies, async (c) => c.json(await runtime.setPolicies(c.get('principal'), c.req.valid('json')), 200));
}
