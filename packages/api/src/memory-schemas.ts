import { z } from '@hono/zod-openapi';
import { DecisionKind, ROLES } from '@canon/core';

// The OpenAPI shapes of memories. Core's `Timeline` holds `z.json()` values, which the OpenAPI
// generator cannot render (it recurses), so values are `unknown` here and the rest is spelled out.

export const ClaimRefSchema = z.object({ source: z.string(), idempotency_key: z.string(), index: z.number().int() });

const EvidenceSchema = z.object({
  source: z.string(),
  idempotency_key: z.string(),
  index: z.number().int(),
  lineage: z.string(),
  source_ref: z.string().nullable(),
  standing: z.number().int(),
  role: z.enum(ROLES),
  occurred_at: z.string(),
  effective_from: z.string(),
  text: z.string(),
  correction: z.boolean(),
});

const TimelineValueSchema = z.object({
  value: z.unknown(),
  valid_from: z.string(),
  valid_to: z.string().nullable(),
  status: z.enum(['in_force', 'superseded', 'overruled', 'disputed', 'retracted']),
  superseded_by: z.enum(['change', 'correction']).nullable(),
  ended_by: z.object({ kind: z.string(), source: z.string(), idempotency_key: z.string(), index: z.number().int().nullable() }).nullable(),
  conditions: z.array(z.string()),
  standing: z.number().int(),
  support: z.number().int(),
  evidence: z.array(EvidenceSchema),
});

const DecisionSchema = z.object({ claim: ClaimRefSchema, kind: z.string(), target: ClaimRefSchema.nullable(), reason: z.string() });

export const TimelineSchema = z
  .object({
    memory_id: z.string(),
    key: z.string(),
    fact_key: z.object({
      workspace_id: z.string(),
      scope: z.enum(['workspace', 'personal']),
      owner: z.string().nullable(),
      subject: z.string(),
      predicate: z.string(),
      qualifiers: z.record(z.string(), z.string()),
    }),
    policy: z.object({
      cardinality: z.enum(['one', 'many']),
      mode: z.enum(['supersede', 'flag']),
      min_role: z.enum(ROLES),
      max_sides: z.number().int().optional(),
    }),
    values: z.array(TimelineValueSchema),
    decisions: z.array(DecisionSchema),
    lineage_events: z.array(z.record(z.string(), z.unknown())),
    revision: z.number().int(),
    status_hint: z.enum(['in_force', 'conflicted', 'tombstoned', 'empty']),
    linked: z.array(z.string()).optional(),
  })
  .openapi('Timeline');

export const CandidateSchema = z
  .object({
    memory_id: z.string(),
    predicate: z.string(),
    qualifiers: z.record(z.string(), z.string()),
    score: z.number(),
    reason: z.string(),
    kind: z.enum(['possible_contradiction', 'possible_duplicate', 'candidate']),
    values: z.array(z.unknown()),
    other_values: z.array(z.unknown()),
    opposite: z.literal(true).optional().openapi({ description: 'one side states what the other negates ("allowed on Fridays" / "no longer allowed on Fridays"); linked, the negation ends the value' }),
    proposed: z.object({ same: z.boolean(), source: z.string(), idempotency_key: z.string(), reason: z.string() }).optional(),
  })
  .openapi('Candidate', { description: 'A memory that may be this fact worded otherwise: shown, never applied (only a link merges).' });

export const MemorySummarySchema = z
  .object({
    id: z.string(),
    key: z.string(),
    subject: z.string(),
    predicate: z.string(),
    qualifiers: z.record(z.string(), z.string()),
    scope: z.enum(['workspace', 'personal']),
    status: z.enum(['current', 'conflicted', 'tombstoned', 'scheduled_only', 'empty']),
    current: z.array(z.object({ value: z.unknown(), standing: z.number().int().openapi({ description: 'the highest standing among the claims supporting the value' }), conditions: z.array(z.string()), valid_from: z.string(), valid_to: z.string().nullable(), evidence_count: z.number().int() })),
    scheduled: z.array(z.object({ value: z.unknown(), effective_from: z.string(), conditions: z.array(z.string()) })),
    conflict: z.array(
      z.object({
        value: z.unknown(),
        standing: z.number(),
        sources: z.array(z.object({ source: z.string(), idempotency_key: z.string(), source_ref: z.string().nullable(), text: z.string() })),
      }),
    ),
    needs_verification: z.boolean(),
    revision: z.number().int(),
    etag: z.string(),
    candidates: z.array(CandidateSchema),
    linked: z.array(z.string()),
  })
  .openapi('MemoryView');

export const MemoryDetailSchema = z
  .object({
    id: z.string(),
    subject: z.string(),
    revision: z.number().int(),
    etag: z.string(),
    status: z.string(),
    known_at: z.string().nullable().optional(),
    timeline: TimelineSchema,
    view: MemorySummarySchema,
  })
  .openapi('Memory');

/** What a proposal or a resolution did: the memory after, and the fold's decision on the new claim. */
export const WriteResultSchema = z
  .object({
    outcome: z.enum(['applied', 'duplicate']),
    episode_id: z.string(),
    decision: z.object({ kind: z.string(), reason: z.string(), target: ClaimRefSchema.nullable() }).nullable(),
    compiled: z.record(z.string(), z.unknown()).nullable(),
    memory: MemoryDetailSchema,
  })
  .openapi('MemoryWriteResult');

/** `as_of` / `known_at`: ISO 8601 date-times with an offset, checked by the runtime. */
export const RecallQuery = z.object({
  as_of: z.string().max(64).optional().openapi({ description: 'valid time: the view of the timeline at this instant (default now, or known_at)' }),
  known_at: z.string().max(64).optional().openapi({ description: 'transaction time: refold the claims ingested by this instant' }),
});

/** Recall of a subject, a page at a time: `limit` memories in key order after `after`. */
export const SubjectRecallQuery = RecallQuery.extend({
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi({ description: 'at most this many memories (default 100)' }),
  after: z.string().min(1).max(4096).optional().openapi({ description: 'the `next` of the page before' }),
});

export const ClaimDecision = z
  .object({
    claim: z.number().int().openapi({ description: 'The claim’s index in its episode (the claims of a text are numbered as the compiler read them)' }),
    memory_id: z.string(),
    kind: z.enum(DecisionKind.options).openapi({ description: 'What the compile did with the claim: `supports` (its value holds), `changes`/`corrects` (it replaced the value in force), `disputes` (a conflict), `duplicate_of`, `enriches`, `settles`, `overruled`, `superseded_by`, `retracts`, `no_effect`' }),
    reason: z.string(),
    target: ClaimRefSchema.nullable().openapi({ description: 'The claim it acted on, if any' }),
    memory: MemorySummarySchema.openapi({ description: 'The memory after the compile, as recall shows it' }),
  })
  .openapi('ClaimDecision');

export const ConflictSchema = z
  .object({
    memory_id: z.string().openapi({ description: 'the memory holding the disagreement; resolve it at POST /v1/memories/{id}/resolution' }),
    subject: z.string(),
    key: z.string(),
    predicate: z.string(),
    qualifiers: z.record(z.string(), z.string()),
    scope: z.enum(['workspace', 'personal']),
    revision: z.number().int(),
    etag: z.string(),
    needs_verification: z.literal(true),
    required_standing: z.number().int(),
    sides: z.array(
      z.object({
        value: z.unknown(),
        standing: z.number().int(),
        valid_from: z.string(),
        sources: z.array(
          z.object({
            source: z.string(),
            idempotency_key: z.string(),
            index: z.number().int(),
            source_ref: z.string().nullable(),
            role: z.enum(ROLES),
            occurred_at: z.string(),
            text: z.string(),
          }),
        ),
      }),
    ),
  })
  .openapi('Conflict');

export const LinkResultSchema = z
  .object({
    outcome: z.enum(['linked', 'unlinked', 'proposed', 'duplicate']),
    episode_id: z.string(),
    in_force: z.boolean().openapi({ description: 'false below member standing: recorded and shown as a proposal, not applied' }),
    keys: z.array(z.string()).openapi({ description: 'the two fact keys the link names, as stored' }),
    compiled: z.record(z.string(), z.unknown()).nullable(),
    memory: MemoryDetailSchema,
  })
  .openapi('LinkResult');

export const ContextBundle = z
  .object({
    text: z.string(),
    tokens: z.number().int(),
    memory_ids: z.array(z.string()),
    conflicts: z.array(
      z.object({
        memory_id: z.string(),
        predicate: z.string(),
        qualifiers: z.record(z.string(), z.string()),
        sides: z.array(
          z.object({
            value: z.unknown(),
            sources: z.array(z.object({ source: z.string(), idempotency_key: z.string(), source_ref: z.string().nullable() })),
          }),
        ),
      }),
    ),
    possible_contradictions: z.array(
      z.object({
        memory_ids: z.array(z.string()),
        score: z.number(),
        reason: z.string(),
        sides: z.array(z.object({ memory_id: z.string(), predicate: z.string(), values: z.array(z.unknown()) })),
      }),
    ),
  })
  .openapi('ContextBundle');
