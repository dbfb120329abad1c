import { PgBoss } from 'pg-boss';
import { canWrite, ForbiddenError, NotFoundError, ValidationError, parseInput } from '@canon/core';
import {
  createPool,
  listEpisodes,
  episodesOfSubject,
  listSubjects,
  migrateDatabase,
  grantQueueAccess,
  subjectsOfWorkspace,
  databaseAnswers,
  type PoolClient,
} from '@canon/store';
import type { Config } from './ops/config.js';
import { CompileRequest, ListEpisodesParams, type Runtime, type RuntimeOptions } from './surface.js';
import { compileSubject, rebuildSubject, type CompileResult } from './compile/compile.js';
import { registerConnectorWorkers } from './connectors/workers.js';
import { startEmbeddedPostgres } from './ops/embedded-postgres.js';
import { log, RepeatedErrors } from './ops/log.js';
import { ingestEpisodes, markedBySubject } from './ingest/ingest.js';
import { withClaimDecisions } from './ingest/claim-decisions.js';
import { openExport } from './export/export.js';
import { importLog } from './export/import.js';
import { resolveCandidates, type ResolveResult } from './links/resolver.js';
import { workspaceResolver } from './links/workspace-resolver.js';
import { compileMany, enqueueCompileAll, enqueueCompiles, QUEUES, type CompileManyData, requeueCompiles, setupQueues, startWorkers } from './compile/jobs.js';
import { checkJobId, findJob } from './compile/job-status.js';
import { authenticate, bootstrapOwnerKey, createApiKey, listKeys, revokeKey } from './auth/keys.js';
import { collectMetrics } from './ops/metrics.js';
import { getCompileSchedule, listDeadLetters, redriveDeadLetters, setCompileSchedule } from './compile/operations.js';
import type { Principal } from './auth/principal.js';
import { withWorkspace } from './auth/scope.js';
import { hiddenSubjects } from './recall/visibility.js';
import { searchMemories } from './recall/search.js';
import { contextBundle } from './recall/context.js';
import { COUNTERS } from './compile/seen-by.js';
import { recomputeAndCompare, unwrittenReport } from './compile/verify.js';
import { createRecallWrites } from './writes/recall-writes.js';
import { recallMemory, recallSubject } from './recall/time-travel.js';
import { scanSecrets } from './ingest/secrets.js';
import { followChanges, readChanges } from './changes/feed.js';
import { createWebhook, listWorkspaceWebhooks, removeWebhook } from './changes/webhooks.js';
import { setupWebhookQueues, startDeliveryWorker, startDispatcher } from './changes/dispatch.js';
import { commitConnectorBatch, connectorCursor } from './connectors/batches.js';
import { inspectSubject } from './recall/inspection.js';

function requireWriter(principal: Principal, what: string): void {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot ${what}`);
}

/** The composition root: every shell (HTTP, CLI, MCP, jobs) calls these same functions. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres({ home: config.home, port: config.pgPort });
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  // A connection that cannot be had in 10 s is an outage to report (503), not a request to hold.
  const pool = createPool(databaseUrl, { max: config.poolSize, connectionTimeoutMillis: 10_000 });
  // pg-boss's pollers fail twice a second each while the database is away: one line, then counts.
  const queueErrors = new RepeatedErrors(log);
  let boss: PgBoss | null = null;
  let dispatcher: { stop(): Promise<void> } | null = null;
  try {
    if (options.migrate !== false) await migrateDatabase(pool);
    if (options.queue !== false) {
      // Supervision every 10 s: a worker killed mid-job stops heart-beating and its job is
      // retried within seconds rather than at the default minute.
      boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss', max: 8, superviseIntervalSeconds: 10, useListenNotify: true, queueCacheIntervalSeconds: 2, schedule: options.schedules !== false });
      boss.on('error', (err) => queueErrors.report('queue', err, { component: 'queue' }, 'queue error'));
      await boss.start();
      await grantQueueAccess(pool, 'pgboss');
      await setupQueues(boss, config.jobs);
      await setupWebhookQueues(boss, config.webhooks, config.jobs.retentionDays);
      if (options.workers !== false) {
        await startWorkers(boss, pool, config.jobs, (workspaceId, subject) => askResolver(workspaceId, subject).then(() => undefined));
        await startDeliveryWorker(boss, pool, config.webhooks);
        dispatcher = startDispatcher(pool, boss);
      }
    }
  } catch (err) {
    await dispatcher?.stop().catch(() => undefined);
    await boss?.stop({ graceful: false }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }

  // The resolver's key is read when first needed: a key revoked since start just stops it.
  // A workspace's own resolver first (`resolver` in its policies), then the server's.
  async function askResolver(workspaceId: string | null, subject: string): Promise<ResolveResult | null> {
    const own = workspaceId === null ? null : await workspaceResolver(pool, workspaceId, config.resolverHosts);
    if (own) return resolveCandidates(pool, own.principal, subject, own.settings);
    if (!config.resolver) return null;
    const principal = await authenticate(pool, config.resolver.key);
    if (workspaceId !== null && principal.workspace_id !== workspaceId) return null;
    return resolveCandidates(pool, principal, subject, { url: config.resolver.url, timeoutMs: config.resolver.timeoutMs });
  }

  // The key names the subject: its first transaction checks that the key may see it.
  const compileOne = (principal: Principal, subject: string) =>
    compileSubject(pool, principal.workspace_id, subject, { chunkSize: config.jobs.compileChunk, visibleTo: principal });
  const needQueue = (): PgBoss => {
    if (!boss) throw new ValidationError('this needs the job queue (start Canon with its queue)');
    return boss;
  };

  let closed = false;
  // Followers of the change feed end with this, before the server waits for open requests.
  const following = new AbortController();
  const runtime: Runtime = {
    config,
    pool,
    databaseUrl,
    embedded,
    boss,
    authenticate: (bearer) => authenticate(pool, bearer),

    async ingest(principal, items, ingestOptions = {}) {
      let queued: string[] = [];
      const result = await ingestEpisodes(pool, principal, items, async (tx, created) => {
        const marked = markedBySubject(created);
        if (boss && ingestOptions.compile !== 'wait' && marked.size > 0) {
          await enqueueCompiles(boss, tx, principal.workspace_id, marked, config.jobs);
          queued = [...marked.keys()].sort();
        }
        await ingestOptions.inTransaction?.(tx);
      });
      // The episodes are stored and a job was queued with them; this only closes the window in
      // which that job was absorbed by a compile already under way. Should it fail, the pending
      // rows stay for the next compile of the subject or the nightly sweep.
      if (boss && queued.length > 0) {
        await requeueCompiles(boss, principal.workspace_id, queued, config.jobs).catch((err: unknown) =>
          log().warn({ event: 'requeue_failed', workspace_id: principal.workspace_id, err }, 'compile not queued again after ingest'),
        );
      }
      if (ingestOptions.compile !== 'wait') return result;
      const compiled: CompileResult[] = [];
      for (const subject of result.subjects) compiled.push(await compileOne(principal, subject));
      const decided = await withWorkspace(pool, principal, (tx) => withClaimDecisions(tx, principal, result.items));
      return { ...result, items: decided, compiled };
    },

    subjectEpisodes: (principal, subject) =>
      withWorkspace(pool, principal, (tx) => episodesOfSubject(tx, principal.workspace_id, subject)),

    async listEpisodes(principal, params) {
      const query = parseInput(ListEpisodesParams, params, 'query');
      const result = await withWorkspace(pool, principal, (tx) => listEpisodes(tx, { workspaceId: principal.workspace_id, ...query }));
      if (!result.ok) throw new ValidationError('after: not a cursor returned by this API');
      return { episodes: result.episodes, next: result.next };
    },

    exportLog: (principal, params) => openExport(pool, principal, params, { chunkSize: config.jobs.compileChunk }),

    importLog: (principal, lines, importOptions = {}) =>
      importLog(pool, principal, lines, {
        ...importOptions,
        chunkSize: config.jobs.compileChunk,
        // The import compiles every subject itself at the end; the jobs cover an import cut short.
        ...(boss ? { enqueue: (tx: PoolClient, marked: ReadonlyMap<string, number>) => enqueueCompiles(boss!, tx, principal.workspace_id, marked, config.jobs) } : {}),
      }),

    async compile(principal, request) {
      requireWriter(principal, 'compile');
      const r = parseInput(CompileRequest, request);
      // Each named subject is compiled as the key may see it: another user's personal subject
      // answers as a name no one wrote, in the request (`compileOne`) and in a job (`visible_to`).
      if (r.async) {
        if (!boss) throw new ValidationError('asynchronous compiles need the job queue (start Canon with its queue)');
        const named = (subjects: string[]): CompileManyData => ({ workspace_id: principal.workspace_id, subjects, visible_to: { user: principal.user } });
        const id = r.all
          ? await enqueueCompileAll(boss, pool, principal.workspace_id)
          : await boss.send(QUEUES.compileMany, named(r.subject ? [r.subject] : r.subjects!));
        if (!id) throw new Error('the queue refused the job');
        return { async: true, job_id: id };
      }
      if (r.subject) return { async: false, result: await compileOne(principal, r.subject) };
      const subjects = r.all ? await withWorkspace(pool, principal, (tx) => subjectsOfWorkspace(tx, principal.workspace_id)) : [...new Set(r.subjects)].sort();
      // Every subject of the workspace the key lists needs no check; each result is still told as the key sees it.
      return { async: false, result: await compileMany(pool, principal.workspace_id, subjects, null, config.jobs.compileChunk, undefined, r.all ? undefined : principal, principal) };
    },

    async rebuild(principal, subject) {
      requireWriter(principal, 'rebuild');
      return rebuildSubject(pool, principal.workspace_id, subject, { visibleTo: principal });
    },

    async verify(principal, subject) {
      requireWriter(principal, 'verify');
      const first = await compileOne(principal, subject);
      const second = await compileOne(principal, subject);
      // Another user's personal subject is verified as a name no one wrote: the rows are not the
      // key's to compare, and a report of them would tell that it exists.
      const report = (await hiddenSubjects(pool, principal, [subject])).length > 0 ? unwrittenReport(subject) : await recomputeAndCompare(pool, principal.workspace_id, subject, principal);
      for (const c of COUNTERS) {
        if (second[c] !== 0) report.differences.push({ subject, key: '', memory_id: '', what: `second compile ${c}`, expected: 0, actual: second[c] });
      }
      if (second.state_hash !== first.state_hash) {
        report.differences.push({ subject, key: '', memory_id: '', what: 'state_hash of the second compile', expected: first.state_hash, actual: second.state_hash });
      }
      for (const [what, value] of [['state_hash of the stored rows', report.stored_state_hash], ['state_hash kept by compiles', report.incremental_state_hash]] as const) {
        if (value !== report.rebuilt_state_hash) {
          report.differences.push({ subject, key: '', memory_id: '', what, expected: report.rebuilt_state_hash, actual: value });
        }
      }
      return { ...report, ok: report.differences.length === 0, first, second };
    },

    subjects: (principal) => withWorkspace(pool, principal, (tx) => listSubjects(tx, principal.workspace_id, new Date().toISOString())),

    async job(principal, jobId) {
      checkJobId(jobId);
      if (!boss) throw new NotFoundError(`no job ${jobId}`);
      return findJob(boss, pool, principal, jobId);
    },

    memories: (principal, subject, params = {}) => recallSubject(pool, principal, subject, params),
    memory: (principal, id, params = {}) => recallMemory(pool, principal, id, params),
    inspectSubject: (principal, subject, inspectOptions = {}) => inspectSubject(pool, principal, subject, inspectOptions),
    ...createRecallWrites(pool, () => boss, config.resolverHosts),
    search: (principal, params) => searchMemories(pool, principal, params, new Date().toISOString(), config.searchTimeoutMs),
    secrets: (principal, params) => scanSecrets(pool, principal, params),
    context: (principal, request) => contextBundle(pool, principal, request, new Date().toISOString()),
    resolveCandidates: (subject, workspaceId) => askResolver(workspaceId ?? null, subject),

    metrics: (principal) => collectMetrics(pool, boss, principal),
    schedule: async (principal) => (boss ? getCompileSchedule(boss, principal.workspace_id) : null),
    setSchedule: (principal, schedule) => setCompileSchedule(needQueue(), principal, schedule),
    deadLetters: (principal) => listDeadLetters(needQueue(), pool, principal),
    redrive: (principal) => redriveDeadLetters(needQueue(), principal),

    createKey: (input) => createApiKey(pool, input),
    listKeys: (workspace) => listKeys(pool, workspace),
    revokeKey: (id) => revokeKey(pool, id),
    bootstrap: () => bootstrapOwnerKey(pool),
    changes: (principal, params) => readChanges(pool, principal, params),
    followChanges: (principal, params, follow) =>
      followChanges(pool, principal, params, { ...follow, signal: AbortSignal.any([follow.signal, following.signal]) }),
    stopFollowing: () => following.abort(),
    connectorCursor: (principal, instanceId) => connectorCursor(pool, principal, instanceId),
    connectorBatch: (principal, input) => commitConnectorBatch(pool, runtime.ingest, principal, input),
    createWebhook: (principal, input) => createWebhook(pool, principal, input, config.webhooks.hosts),
    webhooks: (principal) => listWorkspaceWebhooks(pool, principal),
    removeWebhook: (principal, id) => removeWebhook(pool, principal, id),
    async readiness() {
      const database = await databaseAnswers(pool);
      // The queue has connections of its own: ready when they answer too.
      const queue = boss !== null && database && (await boss.getDb().executeSql('SELECT 1').then(() => true, () => false));
      return { database, queue };
    },
    async close() {
      if (closed) return;
      closed = true;
      following.abort();
      await dispatcher?.stop().catch(() => undefined);
      await boss?.stop({ graceful: true, timeout: 5000 }).catch(() => undefined);
      await pool.end().catch(() => undefined);
      await embedded?.stop().catch(() => undefined);
      queueErrors.flushAll();
    },
  };
  if (boss && options.workers !== false) await registerConnectorWorkers(runtime);
  return runtime;
}
