export { loadConfig, ConfigSchema, type Config } from './config.js';
export { startEmbeddedPostgres, freePort, EmbeddedPostgresError, type EmbeddedDatabase } from './embedded-postgres.js';
export { createRuntime, ListEpisodesParams, type Runtime, type RuntimeOptions, type IngestOptions } from './runtime.js';
export { ingestEpisodes, type IngestResult, type IngestItemResult } from './ingest.js';
export { CreateKeyInput, type CreatedKey } from './keys.js';
export type { Principal } from './principal.js';
