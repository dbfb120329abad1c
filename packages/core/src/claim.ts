import { z } from 'zod';
import { ROLES } from './roles.js';
import { ClaimOp, ClaimRef } from './episode.js';
import { FactKey } from './fact-key.js';
import { Json } from './normalize.js';

/**
 * How a claim was obtained: a structured claim of the body, a slot of the text, a text note, or a
 * fact of a document read by its format's extractor.
 */
export const ClaimOrigin = z.enum(['structured', 'text', 'note', 'document']);
export type ClaimOrigin = z.infer<typeof ClaimOrigin>;

/**
 * One extracted claim (design §3). Plain JSON on purpose: the store saves it as JSON and hands it
 * back to `fold` unchanged, so nothing here may be a Date, a Map or an undefined member.
 */
export const Claim = z.object({
  workspace_id: z.string(),
  episode_id: z.string(),
  /** Position of the claim within its episode; (source, idempotency_key, index) names it forever. */
  index: z.number().int().min(0),
  source: z.string(),
  idempotency_key: z.string(),
  lineage: z.string(),
  snapshot: z.boolean(),
  subject: z.string(),
  kind: z.string(),
  occurred_at: z.string(),
  sequence: z.number().int().nullable(),
  ingested_at: z.string(),
  source_ref: z.string().nullable(),
  fact_key: FactKey,
  key: z.string(),
  memory_id: z.string(),
  predicate: z.string(),
  op: ClaimOp,
  /** Canonical (normalized) value; for `many` keys a member, or the whole set for `replace`. */
  value: Json,
  /** Original wording (the sentence, or the structured claim's text). */
  text: z.string(),
  conditions: z.array(z.string()),
  correction: z.boolean(),
  settles: z.array(ClaimRef),
  effective_from: z.string(),
  effective_explicit: z.boolean(),
  standing: z.number().int(),
  role: z.enum(ROLES),
  user: z.string().nullable(),
  /**
   * Who stated it (design §3): the actor's user, or `key:<id>` for a key without a user; null
   * when the log does not know the key. A later statement of the same author is an update.
   */
  author: z.string().nullable(),
  origin: ClaimOrigin,
  /** Names of the cue-table entries that matched the text (standing, correction, time). */
  cues: z.array(z.string()),
  extractor_version: z.string(),
});
export type Claim = z.infer<typeof Claim>;

export function claimRef(claim: Pick<Claim, 'source' | 'idempotency_key' | 'index'>): ClaimRef {
  return { source: claim.source, idempotency_key: claim.idempotency_key, index: claim.index };
}

export function sameRef(a: ClaimRef, b: ClaimRef): boolean {
  return a.source === b.source && a.idempotency_key === b.idempotency_key && a.index === b.index;
}

/**
 * One version (episode) of a lineage, as the fold needs it: when it happened and which fact keys
 * it stated. With `snapshot`, a key an earlier version stated and this one does not ends here.
 */
export const LineageVersion = z.object({
  lineage: z.string(),
  source: z.string(),
  idempotency_key: z.string(),
  occurred_at: z.string(),
  sequence: z.number().int().nullable(),
  snapshot: z.boolean(),
  ingested_at: z.string(),
  /**
   * The role of the key that wrote this version: what it no longer states ends only where its
   * standing reaches the value's (design §4, standing first) — a lower writer's newer version of
   * a document never ends a higher writer's fact.
   */
  role: z.enum(ROLES),
  /**
   * Who wrote this version, as a claim's `author`: what a version no longer states ends only the
   * same writer's values (`sameWriter`) — a lineage is a name anyone can write.
   */
  author: z.string().nullable(),
  /** Fact key strings (`factKeyString`) this version stated. */
  keys: z.array(z.string()),
});
export type LineageVersion = z.infer<typeof LineageVersion>;
