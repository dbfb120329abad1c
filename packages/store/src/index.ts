export { createPool, inTransaction, openReadSnapshot, databaseAnswers, ensureDatabase, StaleWriteError, type Sql, type Pool, type PoolClient } from './db.js';
export { migrateDatabase, grantQueueAccess, MIGRATIONS_FOLDER } from './migrate.js';
export { SQLSTATE, sqlState, isRetryable, isUnavailable } from './errors.js';
export {
  enterScope,
  allUsersVisible,
  setAllUsersVisible,
  enterSystemRole,
  lockSubject,
  lockKeyBootstrap,
  withLockTimeout,
  LockTimeoutError,
  inSnapshot,
  workspaceIds,
  type SessionScope,
} from './sql/session.js';
export * as schema from './schema.js';
export { type LoggedEpisode } from './sql/episode-row.js';
export { appendEpisodes, findEpisodesByKeys, keyOf, type NewEpisode, type AppendResult } from './sql/append-episodes.js';
export { listEpisodes, type ListEpisodesQuery, type ListEpisodesResult } from './sql/list-episodes.js';
export {
  ensureWorkspace,
  insertApiKey,
  findActiveApiKey,
  findActiveApiKeyById,
  listApiKeys,
  revokeApiKey,
  countApiKeys,
  type ApiKeyRecord,
  type RevokeResult,
} from './sql/api-keys.js';
export { episodesByIds, episodesOfSubject, episodeIdsOfSubject, linkEpisodesOfSubject } from './sql/episode-row.js';
export { decisionsOfEpisodes, type EpisodeDecision } from './sql/claim-dispositions.js';
export { memoryShapesOfSubject, setCandidates, deleteMemories, memoryIdLinkingKey, factKeyOfMemoryId, type MemoryShapeRow, type CandidateRefRow } from './sql/candidates.js';
export { insertPending, takePending, deletePending, subjectsWithPendingAtLeast, subjectsWithPending, totalPending } from './sql/pending.js';
export { insertClaims, memoryIdsOfLineages, claimsOfMemories, claimCountsOfMemories, snapshotVersions } from './sql/claims.js';
export { storedForm } from './stored-form.js';
export { insertMarkers } from './sql/markers.js';
export { insertCompileRun, compileDurationStats, type CompileRunRow } from './sql/compile-runs.js';
export {
  memoriesByIds,
  memoriesOfSubject,
  recallRowsOfSubject,
  candidateRowsByIds,
  summariesOfSubject,
  type MemoryRecallRow,
  insertMemories,
  updateMemoriesIfRevision,
  writeProjections,
  type ProjectionChange,
  deleteDerivedOfSubject,
  memoryHeadsOfSubject,
  type MemoryHeadRow,
  searchText,
  type MemoryRow,
  type MemoryWrite,
  type ConditionalUpdate,
} from './sql/memories.js';
export { getSubject, upsertSubject, staleSubjects, subjectsOfWorkspace, subjectsAmong, listSubjects, type SubjectRow } from './sql/subjects.js';
export { getPolicySetRow, putPolicySetRow } from './sql/policies.js';
export {
  loadConnectorCursor,
  saveConnectorCursor,
  deleteConnectorCursor,
  type ConnectorCursorRef,
  type SaveConnectorCursorResult,
} from './sql/connector-cursors.js';
export {
  insertConnectorInstance,
  findConnectorInstance,
  listConnectorInstances,
  deleteConnectorInstance,
  type ConnectorInstanceRow,
  type InsertConnectorInstanceResult,
  type DeleteConnectorInstanceResult,
} from './sql/connector-instances.js';
export { erasedKeysAmong, insertErasedKeys } from './sql/erased-keys.js';
export { erasableEpisodes, deleteEpisodes, deleteCompileRunsOfSubject, deleteJobsNaming, type ErasableEpisode } from './sql/erase-episodes.js';
export { insertErasure, type ErasureRow } from './sql/erasures.js';
export { claimsOfSubject, compiledSnapshotVersions } from './sql/known-at-inputs.js';
export { conflictedMemories } from './sql/conflicted-memories.js';
export { subjectsOfPredicates } from './sql/subjects-of-predicates.js';
export { searchMemoryValues, searchDocumentTexts, type SearchQuery, type SearchHit, type DocumentHit } from './sql/search.js';
export { memoriesPage, type MemoriesPageQuery } from './sql/memories-page.js';
export { episodeSources } from './sql/episode-sources.js';
export { projectionRowsOfSubject, type ProjectionRows } from './sql/projection-rows.js';
export { saveJobProgress, getJobProgress } from './sql/job-progress.js';
export { erasedKeysPage, insertTombstones, subjectLogStates, type SubjectLogState } from './sql/export.js';
export { insertChanges, changesAfter, changeAt, changesHead, deleteChangesOfSubjects, deleteChangesBefore, type ChangeRow, type ChangeSide, type NewChange, type ChangesQuery, type ChangesPage } from './sql/changes.js';
export {
  insertWebhook,
  countWebhooks,
  listWebhooks,
  deleteWebhook,
  allWebhookIds,
  lockWebhook,
  advanceWebhook,
  recordDeliveryAttempt,
  webhookById,
  noteWebhookError,
  type WebhookRow,
  type NewWebhook,
} from './sql/webhooks.js';
export { parseCursor } from './sql/list-episodes.js';
