export { xxh64, sha256, canonicalJson, lengthPrefixed } from './hash.js';
export { isUuid } from './uuid.js';
export { ROLES, ROLE_STANDING, aRole, canWrite, atLeast, type Role } from './roles.js';
export {
  LIMITS,
  cleanString,
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
  subjectFault,
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
  UnavailableError,
  CursorConflictError,
  PayloadTooLargeError,
  SecretRefusedError,
  ExportInvalidError,
  PoliciesDifferError,
  WorkspaceMismatchError,
  invalidInput,
  parseInput,
  type ProblemType,
  type ItemIssue,
} from './errors.js';
export { COMPILER_VERSION, EXTRACTOR_VERSION } from './version.js';
export {
  Json,
  normalizeText,
  normalizeValue,
  normalizeConditions,
  valueKey,
  fingerprint,
  compareStrings,
} from './normalize.js';
export { FactKey, FactKeyError, makeFactKey, factKeyString, memoryId, parseFactKey, type FactKeyParts } from './fact-key.js';
export {
  Policy,
  PolicySet,
  DEFAULT_POLICY,
  DEFAULT_POLICY_SET,
  policyFor,
  minStanding,
  policyFingerprint,
  DEFAULT_MAX_SIDES,
  maxSides,
  LinkPolicy,
  DEFAULT_LINK_POLICY,
  linkMinStanding,
} from './policy.js';
export { readDocument } from './documents/read-document.js';
export { documentFormat } from './documents/format.js';
export { parseKeyPath } from './documents/key-path.js';
export type { DocumentFact, DocumentFormat, DocumentReading } from './documents/statement.js';
export { Claim, ClaimOrigin, LineageVersion, claimRef, sameRef } from './claim.js';
export {
  EvidenceRef,
  EndRef,
  ValueStatus,
  TimelineValue,
  DecisionKind,
  Decision,
  LineageEvent,
  TimelineStatus,
  Timeline,
} from './timeline.js';
export { compareClaims, compareVersions, compareInstants, orderClaims, orderVersions } from './order.js';
export { fold, foldWithCheckpoint, FoldError, CHECKPOINT_AUTHORS, type FoldCheckpoint } from './fold.js';
export { canResume, resumeFold } from './fold-resume.js';
export {
  assembleTimeline,
  headOf,
  sealedBase,
  timelineHashes,
  viewableHead,
  DECISION_BLOCK,
  EVIDENCE_BLOCK,
  VALUE_BLOCK,
  type BlockHash,
  type NewBlock,
  type Sealed,
  type SealedEvidence,
  type TimelineHashes,
} from './blocks.js';
export { view, viewSettlesAt, type MemoryView, type ViewStatus, type ScheduledValue } from './view.js';
export {
  stateHash,
  timelineDigest,
  combineDigests,
  updateStateHash,
  EMPTY_STATE_HASH,
  timelineEtag,
  timelineEtagAndJson,
  knownAt,
} from './state-hash.js';
export { CUES, STANDING_PENALTY, MAX_PENALTY, readCues, type Cue, type CueClass, type CuePlace } from './cues.js';
export { standingFor } from './standing.js';
export { maskSlots, resolveDate, type Slot, type SlotType } from './slots.js';
export { authorOf, extract, sentences, NOTE_PREDICATE } from './extract.js';
export {
  CANDIDATE_THRESHOLD,
  findCandidates,
  candidatesAround,
  LOOSE_LIMIT,
  WORD_LIMIT,
  CANDIDATES_SHOWN,
  shownCandidates,
  keptCandidates,
  keptCandidateLists,
  candidatesByMemory,
  toldAsChange,
  documentsOf,
  compareCandidateRefs,
  predicateWords,
  scoreShapes,
  shapeOf,
  type CandidateInput,
  type CandidatePair,
  type CandidateRef,
  type PredicateShape,
} from './candidates.js';
export { LINK_KIND, LINK_MIN_STANDING, LinkBody, linkFault, linkOf, linkWorkspaceFault, linkState, onCanonicalKey, pairId, type LinkStatement, type LinkState } from './links.js';
export { jsonFault, jsonTextTooDeep, stringFault, MAX_JSON_DEPTH, type JsonFault } from './json-guard.js';
export {
  SecretsMode,
  DEFAULT_SECRETS_MODE,
  REDACTION_MARKER,
  CANON_SECRET_RULES,
  redactionMarker,
  canonSecretFindings,
  foldForRules,
  isDisguised,
  encodedRuns,
  unfoldFindings,
  outsideMarkers,
  mergeFindings,
  toTokenEnds,
  redactText,
  envelopeStrings,
  pushEnvelopeTexts,
  pushJsonTexts,
  pushEnvelopeCredentialFlags,
  pushJsonCredentialFlags,
  mapEnvelopeStrings,
  mapJsonStrings,
  type SecretFinding,
  type Redaction,
  type EnvelopeString,
} from './secrets.js';
export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  EXPORT_LINE_BYTES,
  IMPORT_REQUEST_BYTES,
  ExportReader,
  ExportWriter,
  ExportHeader,
  ExportPolicies,
  ExportTombstone,
  ExportEpisode,
  LoggedEpisode,
  ExportManifest,
  ExportSubject,
  lineHash,
  hashedLine,
  chainDigest,
  initialDigest,
  type ExportRecord,
  type ExportSelection,
} from './export-format.js';
