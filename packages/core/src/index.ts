export { xxh64, sha256, canonicalJson, lengthPrefixed } from './hash.js';
export { ROLES, ROLE_STANDING, canWrite, atLeast, type Role } from './roles.js';
export {
  LIMITS,
  containsNul,
  Instant,
  ClaimOp,
  ClaimRef,
  ClaimInput,
  EpisodeBody,
  SourceId,
  EpisodeInput,
  Actor,
  defaultLineage,
  toEnvelope,
  canonicalEnvelope,
  contentHash,
  envelopeOf,
  type Envelope,
  type Episode,
} from './episode.js';
export {
  CanonError,
  ValidationError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  KeyConflictError,
  PreconditionFailedError,
  BusyError,
  PayloadTooLargeError,
  type ProblemType,
  type ItemIssue,
} from './errors.js';
