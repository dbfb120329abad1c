import { z } from '@hono/zod-openapi';
import { EpisodeInput, LIMITS, LoggedEpisode } from '@canon/core';
import { ClaimDecision } from './memory-schemas.js';

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
  })
  .passthrough()
  .openapi('Problem');

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

export const EpisodeBatch = z
  .object({ episodes: z.array(EpisodeInput).min(1).max(LIMITS.batchSize) })
  .openapi('EpisodeBatch');

export const Redaction = z
  .object({
    rule: z.string().openapi({ description: 'the rule that found the secret, e.g. `stripe`, `private-key`' }),
    path: z.string().openapi({ description: 'the field, e.g. `body.text`, `body.claims.0.value`; an object key is `<object>.{}`' }),
  })
  .openapi('Redaction');

export const CompileResult = z
  .object({
    subject: z.string(),
    episodes_processed: z.number().int(),
    memories_created: z.number().int(),
    memories_updated: z.number().int(),
    memories_superseded: z.number().int(),
    conflicts_opened: z.number().int(),
    tombstoned: z.number().int(),
    state_hash: z.string(),
    compiler_version: z.string(),
  })
  .openapi('CompileResult');


export const IngestItem = z.object({
  index: z.number().int(),
  status: z.enum(['created', 'duplicate', 'erased', 'refused']).openapi({
    description: '`erased`: the key was erased earlier (design §8); `refused`: the item held a secret and the workspace refuses secrets. Neither writes anything.',
  }),
  /** Null for `erased` and `refused`: nothing was written. */
  episode_id: z.string().uuid().nullable(),
  redactions: z
    .array(Redaction)
    .optional()
    .openapi({ description: 'Secrets replaced by `[redacted:<rule>:<hash>]` before the item was hashed and stored; absent when none' }),
  rule: z.string().optional().openapi({ description: 'For `refused`: the rule that found a secret' }),
  path: z.string().optional().openapi({ description: 'For `refused`: the field it was in' }),
  decisions: z
    .array(ClaimDecision)
    .optional()
    .openapi({ description: 'With `?compile=wait`, for a `created` or `duplicate` item: what the compile did with each of its claims' }),
});

export const IngestResponse = z
  .object({
    items: z.array(IngestItem),
    created: z.number().int(),
    duplicates: z.number().int(),
    erased: z.number().int(),
    redacted: z.number().int().openapi({ description: 'items stored with secrets replaced (each lists its `redactions`)' }),
    refused: z.number().int().openapi({ description: 'items refused for holding a secret (workspace policy `secrets: "refuse"`)' }),
    statements: z
      .record(z.string(), z.number().int())
      .optional()
      .openapi({
        description:
          'Statements of the documents created (`kind: "document"`) that will give no fact, by reason: `ambiguous` (one version stating two values for one key), `unparsed` (a settings file its parser refused), `too_many`; absent when none',
      }),
    compiled: z.array(CompileResult).optional().openapi({ description: 'With `?compile=wait`: the compile of each subject the batch wrote to' }),
  })
  .openapi('IngestResponse');

export const StoredEpisode = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string(),
    ...LoggedEpisode.shape,
    content_hash: z.string(),
    log_position: z.string(),
  })
  .openapi('Episode');

export const EpisodePage = z
  .object({ episodes: z.array(StoredEpisode), next: z.string().nullable() })
  .openapi('EpisodePage');
