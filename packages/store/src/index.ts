export { createPool, withTransaction, type Sql, type Pool, type PoolClient } from './db.js';
export { migrateDatabase, MIGRATIONS_FOLDER } from './migrate.js';
export { SQLSTATE, sqlState, isRetryable } from './errors.js';
export * as schema from './schema.js';
export { type LoggedEpisode } from './sql/episode-row.js';
export { appendEpisodes, findEpisodesByKeys, keyOf, type NewEpisode, type AppendResult } from './sql/append-episodes.js';
export { listEpisodes, type ListEpisodesQuery, type ListEpisodesResult } from './sql/list-episodes.js';
export {
  ensureWorkspace,
  insertApiKey,
  findActiveApiKey,
  listApiKeys,
  revokeApiKey,
  countApiKeys,
  type ApiKeyRecord,
  type RevokeResult,
} from './sql/api-keys.js';
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
