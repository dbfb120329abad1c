import { z } from '@hono/zod-openapi';
import { EpisodeInput, LIMITS, ROLES } from '@canon/core';

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

export const IngestItem = z.object({
  index: z.number().int(),
  status: z.enum(['created', 'duplicate', 'erased']),
  /** Null for `erased`: the key was erased earlier (design §8) and nothing was written. */
  episode_id: z.string().uuid().nullable(),
});

export const IngestResponse = z
  .object({
    items: z.array(IngestItem),
    created: z.number().int(),
    duplicates: z.number().int(),
    erased: z.number().int(),
  })
  .openapi('IngestResponse');

export const StoredEpisode = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string(),
    source: z.string(),
    idempotency_key: z.string(),
    subject: z.string(),
    scope: z.enum(['workspace', 'personal']),
    owner: z.string().nullable(),
    kind: z.string(),
    body: z.record(z.string(), z.unknown()),
    occurred_at: z.string(),
    occurred_at_defaulted: z.boolean(),
    observed_at: z.string().nullable(),
    ingested_at: z.string(),
    sequence: z.number().int().nullable(),
    lineage: z.string(),
    snapshot: z.boolean(),
    actor: z.object({ role: z.enum(ROLES), user: z.string().nullable() }),
    source_ref: z.string().nullable(),
    content_hash: z.string(),
    log_position: z.string(),
  })
  .openapi('Episode');

export const EpisodePage = z
  .object({ episodes: z.array(StoredEpisode), next: z.string().nullable() })
  .openapi('EpisodePage');
