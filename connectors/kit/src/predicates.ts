import { z } from 'zod';
import { ROLES } from '@canon/core';

/** How the fold treats one predicate's fact keys (design §4). */
export const PredicatePolicy = z.strictObject({
  cardinality: z.enum(['one', 'many']),
  /** `supersede` for state that changes; `flag` for stable attributes (a different value disputes). */
  mode: z.enum(['supersede', 'flag']),
  /** The minimum standing needed to change a value of this predicate. */
  min_role: z.enum(ROLES),
});
export type PredicatePolicy = z.infer<typeof PredicatePolicy>;

export type PredicatePolicies = Readonly<Record<string, Readonly<PredicatePolicy>>>;

/**
 * Declares a connector's predicates: validated once and frozen, so a typo in a policy fails at
 * import time rather than as a wrong fold later.
 */
export function definePredicates(policies: Record<string, PredicatePolicy>): PredicatePolicies {
  const out: Record<string, Readonly<PredicatePolicy>> = {};
  for (const [predicate, policy] of Object.entries(policies)) {
    out[predicate] = Object.freeze(PredicatePolicy.parse(policy));
  }
  return Object.freeze(out);
}
