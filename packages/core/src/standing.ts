import type { Role } from './roles.js';
import { ROLE_STANDING } from './roles.js';
import type { CueMatch } from './cues.js';
import { standingPenalty } from './cues.js';

/**
 * A claim's standing (design §3): the rank of the credential's role, lowered by hedges,
 * hypotheticals and hearsay in its text — never raised. The penalty stays below one band (10), so
 * a hedging maintainer still outranks a member, and every claim keeps a positive standing.
 */
export function standingFor(role: Role, matches: readonly CueMatch[] = []): number {
  return Math.max(1, ROLE_STANDING[role] - standingPenalty(matches));
}
