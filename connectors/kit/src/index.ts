export type {
  JsonValue,
  SyncOptions,
  SyncBatch,
  CheckResult,
  Connector,
  ConnectorDefinition,
} from './contract.js';
export { PredicatePolicy, definePredicates, type PredicatePolicies } from './predicates.js';
export { key, KeyPartError } from './key.js';
export {
  ConnectorError,
  ConnectorConfigError,
  KeyConflictError,
  ConnectorAbortedError,
  isTransient,
} from './errors.js';
export type { ConnectorSink, CommitItemResult } from './sink.js';
export { parseConfig } from './config.js';
export {
  runConnector,
  isRetraction,
  DEFAULT_RETRY,
  type RunOptions,
  type RunSummary,
  type RunProgress,
  type RetryOptions,
  type KeyConflictRecord,
} from './runner.js';
