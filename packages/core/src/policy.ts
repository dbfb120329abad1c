import { z } from 'zod';
import { ROLES, ROLE_STANDING } from './roles.js';
import { canonicalJson, sha256 } from './hash.js';

/**
 * How one predicate's memories change (design §4):
 * - `cardinality`: `one` value at a time, or `many` members (tags, owners, allowed hosts);
 * - `mode`: `supersede` for state that changes (a later claim of sufficient standing is a change
 *   even without change phrasing), `flag` for stable attributes (a different value needs an explicit
 *   time, a correction or a newer version of the same lineage, otherwise it is a dispute);
 * - `min_role`: the least role whose claims may set or change the value;
 * - `max_sides`: how many values of equal standing may stand open against each other; further
 *   distinct values are evidence of the dispute, not new sides (default `DEFAULT_MAX_SIDES`).
 */
export const Policy = z.object({
  cardinality: z.enum(['one', 'many']),
  mode: z.enum(['supersede', 'flag']),
  min_role: z.enum(ROLES),
  max_sides: z.number().int().min(2).max(64).optional(),
});
export type Policy = z.infer<typeof Policy>;

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * What a link needs (design §1): `min_role`, the least role whose link is in force; below it a
 * link is a proposal, shown on the pair and never applied. Default `member`.
 */
export const LinkPolicy = z.strictObject({ min_role: z.enum(ROLES) });
export type LinkPolicy = z.infer<typeof LinkPolicy>;

export const DEFAULT_LINK_POLICY: LinkPolicy = Object.freeze({ min_role: 'member' });

/**
 * A workspace's policies: defaults for undeclared predicates, per-predicate overrides, time zone,
 * and the standing links need (absent: `DEFAULT_LINK_POLICY`, and a fingerprint as before links
 * had a policy).
 */
export const PolicySet = z.object({
  defaults: Policy,
  predicates: z.record(z.string().min(1), Policy),
  time_zone: z.string().min(1).refine(isTimeZone, { message: 'must be an IANA time zone' }),
  links: LinkPolicy.optional(),
});
export type PolicySet = z.infer<typeof PolicySet>;

/**
 * Undeclared predicates are treated as stable attributes (`flag`): a disagreement is shown, never
 * silently resolved by arrival time. Any role may state them (`reader`): standing still ranks
 * claims, and connectors declare stricter policies for the predicates they emit.
 */
export const DEFAULT_POLICY: Policy = Object.freeze({ cardinality: 'one', mode: 'flag', min_role: 'reader' });

export const DEFAULT_POLICY_SET: PolicySet = Object.freeze({
  defaults: DEFAULT_POLICY,
  predicates: Object.freeze({}) as Record<string, Policy>,
  time_zone: 'UTC',
});

export function policyFor(policies: PolicySet, predicate: string): Policy {
  return Object.hasOwn(policies.predicates, predicate) ? policies.predicates[predicate]! : policies.defaults;
}

/** Open sides of a dispute before further values become its evidence (design §4). */
export const DEFAULT_MAX_SIDES = 8;

export function maxSides(policy: Policy): number {
  return policy.max_sides ?? DEFAULT_MAX_SIDES;
}

/** The standing a link needs to be in force in a workspace of these policies. */
export function linkMinStanding(policies: PolicySet): number {
  return ROLE_STANDING[(policies.links ?? DEFAULT_LINK_POLICY).min_role];
}

/** The standing a claim needs to set or change a value under this policy. */
export function minStanding(policy: Policy): number {
  return ROLE_STANDING[policy.min_role];
}

/**
 * A deterministic fingerprint of a policy set, written on processed markers: equal sets (whatever
 * the key order they were written in) give equal fingerprints, so a policy change is detectable.
 */
export function policyFingerprint(policies: PolicySet): string {
  return sha256(`policies/1|${canonicalJson(policies)}`).slice(0, 32);
}
