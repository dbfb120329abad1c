export { loadConfig, ConfigSchema, type Config } from './config.js';
export { startEmbeddedPostgres, stopEmbeddedServers, freePort, EmbeddedPostgresError, type EmbeddedDatabase } from './embedded-postgres.js';
export { createRuntime } from './runtime.js';
export { ListEpisodesParams, type Runtime, type RuntimeOptions, type IngestOptions } from './surface.js';
export { localPort, ingestAnswer, type CanonPort, type IngestAnswer, type ConnectorBatchAnswer, type SubjectCounts } from './port.js';
export { ingestEpisodes, type IngestResult, type IngestItemResult, type ClaimDecision } from './ingest.js';
export { CreateKeyInput, type CreatedKey } from './keys.js';
export type { Principal } from './principal.js';
export {
  syncConnector,
  runConnectorTo,
  type SyncConnectorOptions,
  type SyncConnectorResult,
  type SyncCompileSummary,
  type ConnectorRuntime,
  type ConnectorDestination,
  type ConnectorRunOptions,
} from './connectors/sync.js';
export { connectorCursor, commitConnectorBatch, type ConnectorCursorView, type ConnectorBatchInput, type ConnectorBatchResult } from './connectors/batches.js';
export {
  addConnectorInstance,
  listConnectorInstances,
  removeConnectorInstance,
  runConnectorInstance,
  resetConnectorCursor,
  type ConnectorInstance,
  type AddConnectorInstanceOptions,
  type RunConnectorInstanceOptions,
} from './connectors/instances.js';
export { registerConnectorWorkers } from './connectors/workers.js';
export { CONNECTOR_RUN_QUEUE, connectorScheduleKey, type ConnectorRunJobData } from './connectors/schedules.js';
export { createPostgresSink, connectorPrincipal, CursorMovedError } from './connectors/postgres-sink.js';
export { CONNECTOR_IDS, registeredConnector, type ConnectorId } from './connectors/registry.js';
export { CompileRequest, type CompileResponse, type VerifyReport } from './surface.js';
export { compileSubject, rebuildSubject, foldMemory, type CompileResult, type CompileOptions } from './compile.js';
export { QUEUES, setupQueues, startWorkers, compileMany, nightly, sumResults, type JobSettings, type ManyResult } from './jobs.js';
export { findJob, type JobView } from './job-status.js';
export { loadPolicySet, savePolicySet, effectivePolicySet, WorkspacePolicies, DECLARED_PREDICATES } from './policies.js';
export { subjectMemories, memoryDetail, summarize, visibleTo, parseInstant, type MemorySummary, type MemoryDetail } from './recall.js';
export { recomputeAndCompare, type RecomputeReport, type VerifyDifference } from './verify.js';
export { collectMetrics } from './metrics.js';
export { getNightlySchedule, setNightlySchedule, listDeadLetters, redriveDeadLetters, type NightlySchedule, type DeadLetter } from './operations.js';
export { withWorkspace, withSystem, enterWorkspace, allUsersOf, asAllUsers, type ScopeOf } from './scope.js';
export { searchMemories, SearchParams, type SearchResult, type SearchResponse } from './search.js';
export { contextBundle, buildContext, estimateTokens, ContextRequest, MAX_CONTEXT_TOKENS, type ContextBundle, type ContextConflict, type ContextMemory } from './context.js';
export { compilePendingInTransaction } from './compile.js';
export { prepareBatch, prepareImportBatch, appendBatch, type PreparedBatch, type ImportedItem } from './ingest.js';
export { openExport, ExportParams, type OpenedExport } from './export.js';
export { importLog, type ImportOptions, type ImportResult, type ImportedSubject } from './import.js';
export { erasedKeyHash } from './erased-key.js';
export { recallSubject, recallMemory, recallInstants, RECALL_PAGE, type RecallParams, type SubjectRecallParams, type SubjectRecall } from './time-travel.js';
export { ProposalInput, proposeChange, parseEtag, type ProposalResult } from './proposals.js';
export { LinkInput, linkMemories, type LinkResult } from './links/link-memories.js';
export { RESOLVER_PROTOCOL, RESOLVER_SOURCE, ResolverResponse, type ResolverRequest, type ResolveResult } from './links/resolver.js';
export { type CandidateView, type CandidateKind } from './links/candidate-view.js';
export { type ContextPossibleContradiction } from './context.js';
export { ConflictQuery, ResolveInput, listConflicts, resolveConflict, type OpenConflict, type ConflictSide } from './conflicts.js';
export { getPolicies, putPolicies, type PoliciesView, type PolicyChange } from './policy-change.js';
export { PREVIEW_LIST, type PreviewResult, type PreviewChange, type PreviewChangeKind } from './preview.js';
export { erase, type ErasureResult, type ErasureTarget } from './erasure.js';
export { type RecallWrites } from './recall-writes.js';
export { SUBJECT_LOCK_TIMEOUT_MS } from './subject-write.js';
export { inspectMemories, inspectSubject, type InspectedMemory, type MemorySections, type SubjectInspection } from './inspection.js';
export { detectSecrets, redactEnvelopes, scanSecrets, shortRuleId, SecretScanParams, type RedactedEnvelope, type SecretScanFinding, type SecretScanResult } from './secrets.js';
export { loadSecretsMode } from './policies.js';
export { isUnavailable } from '@canon/store';
export { createLogger, log, useLogger, silentLogger, subjectRef, serializeError, formatLine, RepeatedErrors, LOG_LEVELS, type Logger, type LogLevel } from './log.js';
export { superviseDatabase, type DatabaseSupervisor, type SupervisorOptions } from './supervision.js';
export { ChangesParams, Cursor, FEED_START, type ChangeEvent, type ChangesPage } from './changes/feed.js';
export { type ChangeKind, type ChangeSide } from './changes/kinds.js';
export { WebhookInput, WEBHOOK_HEADERS, signDelivery, type WebhookView, type CreatedWebhook } from './changes/webhooks.js';
export { WEBHOOK_QUEUES, type DeliveryJobData } from './changes/dispatch.js';
