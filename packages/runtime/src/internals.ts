// What tests and benchmarks reach below the runtime's face; no shell imports it (test/build.test.ts).
export { freePort } from './ops/embedded-postgres.js';
export { CONNECTOR_RUN_QUEUE, connectorScheduleKey } from './connectors/schedules.js';
export { ANALYZE_AFTER_CREATED, compileSubject } from './compile/compile.js';
export { QUEUES, compileMany, pruneChangeFeed, pruneJobProgress, scheduledCompile } from './compile/jobs.js';
export { summarize } from './recall/recall.js';
export { withWorkspace, withSystem, enterWorkspace } from './auth/scope.js';
export { estimateTokens } from './recall/context.js';
export { RESOLVER_PROTOCOL, resolverKey } from './links/resolver.js';
export { formatLine, RepeatedErrors } from './ops/log.js';
export { parseFactKey } from './links/linked-fold.js';
