import { z } from 'zod';
import { ROLES } from './roles.js';
import { ClaimRef } from './episode.js';
import { FactKey } from './fact-key.js';
import { Json } from './normalize.js';
import { Policy } from './policy.js';

/** A claim cited as evidence for a value. Referenced by (source, idempotency_key, index). */
export const EvidenceRef = z.object({
  source: z.string(),
  idempotency_key: z.string(),
  index: z.number().int().min(0),
  lineage: z.string(),
  source_ref: z.string().nullable(),
  standing: z.number().int(),
  role: z.enum(ROLES),
  occurred_at: z.string(),
  effective_from: z.string(),
  text: z.string(),
  correction: z.boolean(),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;

/** What ended a value's interval. `index` is null for a snapshot version (not a claim). */
export const EndRef = z.object({
  kind: z.enum(['change', 'correction', 'retraction', 'snapshot']),
  source: z.string(),
  idempotency_key: z.string(),
  index: z.number().int().min(0).nullable(),
});
export type EndRef = z.infer<typeof EndRef>;

/**
 * Time-free status of a value (design §4). Whether it is current or scheduled at an instant is
 * a view (`view`), never stored: a change set for next Tuesday becomes current with no compile.
 */
export const ValueStatus = z.enum(['in_force', 'superseded', 'overruled', 'disputed', 'retracted']);
export type ValueStatus = z.infer<typeof ValueStatus>;

export const TimelineValue = z.object({
  value: Json,
  /** Start of the interval in which the value holds. */
  valid_from: z.string(),
  /**
   * End of that interval (exclusive), null while open. For a value superseded by correction the
   * interval is the time it was believed, not a time it held (it never did).
   */
  valid_to: z.string().nullable(),
  status: ValueStatus,
  superseded_by: z.enum(['change', 'correction']).nullable(),
  ended_by: EndRef.nullable(),
  conditions: z.array(z.string()),
  /** Highest standing among the claims supporting the value. */
  standing: z.number().int(),
  /** Independent lineages behind the value: a file restated in ten versions counts once. */
  support: z.number().int().min(0),
  evidence: z.array(EvidenceRef),
});
export type TimelineValue = z.infer<typeof TimelineValue>;

export const DecisionKind = z.enum([
  'supports',
  'duplicate_of',
  'enriches',
  'changes',
  'corrects',
  'settles',
  'superseded_by',
  'overruled',
  'disputes',
  'retracts',
  'no_effect',
]);
export type DecisionKind = z.infer<typeof DecisionKind>;

/** What became of one claim in the fold, with a reason a person can read. */
export const Decision = z.object({
  claim: ClaimRef,
  kind: DecisionKind,
  target: ClaimRef.nullable(),
  reason: z.string(),
});
export type Decision = z.infer<typeof Decision>;

/** A snapshot version that no longer states the key: what it did to the values of its lineage. */
export const LineageEvent = z.object({
  lineage: z.string(),
  source: z.string(),
  idempotency_key: z.string(),
  at: z.string(),
  effect: z.enum(['ended', 'no_effect']),
  reason: z.string(),
});
export type LineageEvent = z.infer<typeof LineageEvent>;

/** Time-free summary of how the timeline ends (for counters: conflicts opened, tombstoned). */
export const TimelineStatus = z.enum(['in_force', 'conflicted', 'tombstoned', 'empty']);
export type TimelineStatus = z.infer<typeof TimelineStatus>;

export const Timeline = z.object({
  memory_id: z.string(),
  key: z.string(),
  fact_key: FactKey,
  policy: Policy,
  values: z.array(TimelineValue),
  decisions: z.array(Decision),
  lineage_events: z.array(LineageEvent),
  /** Number of distinct claims folded in: deterministic, and it only grows. */
  revision: z.number().int().min(0),
  status_hint: TimelineStatus,
  /**
   * Other fact keys linked into this memory (design §1): present only on a memory that links
   * made of several keys, so an unlinked memory's bytes, and its digest, are what they were.
   */
  linked: z.array(z.string()).optional(),
});
export type Timeline = z.infer<typeof Timeline>;
