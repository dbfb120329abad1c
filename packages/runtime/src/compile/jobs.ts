import { log, subjectRef } from '../ops/log.js';
import type { PgBoss } from 'pg-boss';
import { COMPILER_VERSION, ValidationError } from '@canon/core';
import { addToBacklog, deleteChangesBefore, deleteJobProgressBefore, queuedJobKeys, recentlyReportedJobs, saveJobProgress, staleSubjects, subjectsAmong, subjectsOfWorkspace, subjectsWithPending, workspaceIds, type Pool, type PoolClient, type Sql } from '@canon/store';
import { compileSubject, rebuildSubject, type CompileOptions, type CompileResult } from './compile.js';
import { COUNTERS, WORKSPACE_VIEW, zeroCounters } from './seen-by.js';
import { loadPolicySet } from '../writes/policies.js';
import { allUsersOf, withSystem, withWorkspace } from '../auth/scope.js';

export const QUEUES = Object.freeze({
  compile: 'compile',
  compileDead: 'compile-dead',
  compileMany: 'compile-many',
  /** `{all}` compiles: at most one queued or running per workspace (singleton key = workspace). */
  compileAll: 'compile-all',
  scheduledCompile: 'scheduled-compile',
});

export const DEFAULT_SCHEDULE_CRON = '0 3 * * *';

/** pg-boss's key of the default compile schedule; a workspace's own is keyed by its id. */
export const DEFAULT_SCHEDULE_KEY = '';

/**
 * The singleton key a scheduled compile's jobs carry: the queue is `stately` (one job per state),
 * and without a key of its own per schedule, two workspaces whose schedules fire in the same
 * minute got one job between them — the other's night was dropped. `*` is in no workspace id.
 */
export const scheduleSingleton = (key: string) => (key === DEFAULT_SCHEDULE_KEY ? '*default' : key);

/** A scheduled compile: one workspace's (its own schedule), or none named — the default schedule's. */
export interface ScheduledCompileData {
  workspace_id?: string;
}

export interface JobSettings {
  /** Seconds a burst's first episode waits for the rest before its subject is compiled. */
  debounceSeconds: number;
  /** Pending episodes of one subject that trigger a compile at once, debounce or not. */
  compileAfter: number;
  compileChunk: number;
  retentionDays: number;
  changesRetentionDays: number;
  scheduleCron: string | undefined;
  scheduleTimeZone: string | undefined;
}

export interface CompileJobData {
  workspace_id: string;
  subject: string;
  rebuild?: boolean;
}

export interface CompileManyData {
  workspace_id: string;
  subjects?: string[];
  all?: boolean;
  /**
   * The user of the key that named `subjects`: each is compiled as that key may see it, so a
   * name of another user's personal subject answers as one no one wrote (zeros), as it does
   * when compiled in the request.
   */
  visible_to?: { user: string | null };
}

/**
 * pg-boss runs inside the caller's transaction through this one-method port, so a job is
 * enqueued with the rows that cause it (both or neither).
 */
export function bossDb(tx: Sql): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } {
  return { executeSql: (text, values) => tx.query(text, values) };
}

const singletonKey = (workspaceId: string, subject: string) => JSON.stringify([workspaceId, subject]);

/** Creates a queue, or brings an existing one's options in line with the configuration. */
export async function ensureQueue(boss: PgBoss, name: string, options: Parameters<PgBoss['createQueue']>[1]): Promise<void> {
  if (await boss.getQueue(name)) {
    // A queue's policy is fixed at creation; everything else follows the configuration.
    const { policy: _policy, ...rest } = options ?? {};
    await boss.updateQueue(name, rest as Parameters<PgBoss['updateQueue']>[1]);
    return;
  }
  try {
    await boss.createQueue(name, options);
  } catch (err) {
    // Two processes starting together: the other one created it first.
    if (!(await boss.getQueue(name))) throw err;
  }
}

/** Creates the queues and the default compile schedule (idempotent: every start runs it). */
export async function setupQueues(boss: PgBoss, settings: JobSettings): Promise<void> {
  const deleteAfterSeconds = Math.round(settings.retentionDays * 86_400);
  await ensureQueue(boss, QUEUES.compileDead, { policy: 'standard', deleteAfterSeconds });
  // stately + singletonKey per subject: at most one compile of a subject queued and one
  // active, so a burst of ingests collapses into the one queued job.
  await ensureQueue(boss, QUEUES.compile, {
    policy: 'stately',
    retryLimit: 5,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 60,
    // A killed worker stops heart-beating: pg-boss's supervision fails its job within about a
    // minute (it sweeps queues on its own interval), and it is retried — not at expiry.
    heartbeatSeconds: 10,
    expireInSeconds: 900,
    deadLetter: QUEUES.compileDead,
    deleteAfterSeconds,
    // Wake a worker at once rather than at its next poll.
    notify: true,
  });
  await ensureQueue(boss, QUEUES.compileMany, { policy: 'standard', retryLimit: 2, heartbeatSeconds: 10, expireInSeconds: 3600, deleteAfterSeconds, notify: true });
  await ensureQueue(boss, QUEUES.compileAll, { policy: 'exclusive', retryLimit: 2, heartbeatSeconds: 10, expireInSeconds: 3600, deleteAfterSeconds, notify: true });
  await ensureQueue(boss, QUEUES.scheduledCompile, { policy: 'stately', retryLimit: 2, heartbeatSeconds: 10, expireInSeconds: 3600, deleteAfterSeconds });
  await adoptLegacySchedules(boss);
  // The environment, when it names a schedule, wins; otherwise one set with `canon schedule set`
  // survives restarts, and a fresh database gets 03:00 UTC.
  // This is the default schedule (the unkeyed one), for every workspace without its own.
  const existing = await boss.getSchedules(QUEUES.scheduledCompile, DEFAULT_SCHEDULE_KEY);
  if (settings.scheduleCron || settings.scheduleTimeZone || existing.length === 0) {
    const cron = settings.scheduleCron ?? existing[0]?.cron ?? DEFAULT_SCHEDULE_CRON;
    const tz = settings.scheduleTimeZone ?? existing[0]?.timezone ?? 'UTC';
    checkSchedule(boss, cron, tz, { cron: 'CANON_SCHEDULE_CRON', timeZone: 'CANON_SCHEDULE_TZ' });
    await boss.schedule(QUEUES.scheduledCompile, cron, {}, {
      tz,
      key: DEFAULT_SCHEDULE_KEY,
      singletonKey: scheduleSingleton(DEFAULT_SCHEDULE_KEY),
    });
  }
  await keySchedules(boss);
}

/**
 * Refuses a schedule the queue could not fire, naming the field at fault and what it takes: the
 * cron parser's own words ("cannot resolve alias \"eve\"") say little to someone who typed
 * "every day", so they come last, after the shape of a valid one. `names`: the fields as the
 * writer called them (the request's members, or the environment's variables at start).
 */
export function checkSchedule(boss: PgBoss, cron: string, timeZone: string, names: { cron: string; timeZone: string }): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new ValidationError(`${names.timeZone}: ${JSON.stringify(timeZone)} is not a time zone this server knows (an IANA name, such as UTC or Europe/Paris)`);
  }
  const shape = `five fields (minute hour day-of-month month day-of-week, as in "0 3 * * *" for 03:00 every day) or an alias such as @daily`;
  // The parser takes a sixth field, of seconds, before the minutes: "* * * * * *" would compile
  // every second, and a sixth field written as a year would be read as something else.
  const fields = cron.trim().split(/\s+/).length;
  if (!cron.trim().startsWith('@') && fields !== 5) {
    throw new ValidationError(`${names.cron}: ${JSON.stringify(cron)} is not a schedule: ${shape} (it has ${fields} field${fields === 1 ? '' : 's'})`);
  }
  try {
    boss.previewSchedule(cron, { tz: timeZone });
  } catch (err) {
    const said = (err as Error).message.replace(/^(Validation|Constraint) error, /, '');
    throw new ValidationError(`${names.cron}: ${JSON.stringify(cron)} is not a schedule: ${shape} (${said})`);
  }
}

/** Schedules saved before they carried their singleton key get it (see `scheduleSingleton`). */
async function keySchedules(boss: PgBoss): Promise<void> {
  for (const s of await boss.getSchedules(QUEUES.scheduledCompile)) {
    const singletonKey = scheduleSingleton(s.key);
    if (s.options?.singletonKey === singletonKey) continue;
    await boss.schedule(QUEUES.scheduledCompile, s.cron, s.data ?? {}, { tz: s.timezone, key: s.key, singletonKey });
  }
}

/** The instant `days` before `now`: what a retention of that many days keeps is after it. */
function retainedSince(days: number, now: Date): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString();
}

/** Deletes the change feed's rows older than the retention, in every workspace. Returns how many went. */
export async function pruneChangeFeed(pool: Pool, retentionDays: number, now: Date = new Date()): Promise<number> {
  return withSystem(pool, (tx) => deleteChangesBefore(tx, retainedSince(retentionDays, now)));
}

/**
 * Deletes the progress rows of jobs last reported before the job retention, in every workspace:
 * by then pg-boss has deleted the jobs themselves. Returns how many went.
 */
export async function pruneJobProgress(pool: Pool, retentionDays: number, now: Date = new Date()): Promise<number> {
  return withSystem(pool, (tx) => deleteJobProgressBefore(tx, retainedSince(retentionDays, now)));
}

/** The queue the scheduled compile had before it was named for what it is. */
const LEGACY_SCHEDULE_QUEUE = 'nightly';

/**
 * A database whose schedules were kept under the old queue name keeps them: each (the default
 * and every workspace's own) moves to the scheduled-compile queue, and the old queue goes.
 */
async function adoptLegacySchedules(boss: PgBoss): Promise<void> {
  if (!(await boss.getQueue(LEGACY_SCHEDULE_QUEUE))) return;
  for (const s of await boss.getSchedules(LEGACY_SCHEDULE_QUEUE)) {
    await boss.schedule(QUEUES.scheduledCompile, s.cron, s.data ?? {}, { tz: s.timezone, key: s.key, singletonKey: scheduleSingleton(s.key) });
    await boss.unschedule(LEGACY_SCHEDULE_QUEUE, s.key);
  }
  await boss.deleteQueue(LEGACY_SCHEDULE_QUEUE);
}

/**
 * Called in the ingest transaction, as its last statements: a compile of each touched subject,
 * debounced. The first episode of a burst queues a compile `debounceSeconds` ahead; later ones
 * find it queued and ride on it, unless the subject has piled up `compileAfter` episodes, which
 * pulls it forward. `marked` is how many episodes of each subject the transaction marked as
 * waiting.
 */
export async function enqueueCompiles(boss: PgBoss, tx: PoolClient, workspaceId: string, marked: ReadonlyMap<string, number>, settings: JobSettings): Promise<void> {
  if (marked.size === 0) return;
  const subjects = [...marked.keys()].sort();
  // One statement for the subjects with no compile waiting: the stately queue keeps one waiting
  // job per subject, so a job sent for the others would be dropped (and checking every unique
  // index of pg-boss's table to drop it cost more than the episodes' own insert). The waiting job
  // will see these episodes too — unless a worker starts it before this transaction commits: see
  // requeueCompiles. One inserted here while another transaction queues the same subject is still
  // dropped by the queue.
  await insertUnqueued(boss, tx, workspaceId, subjects, settings);
  // Last, since it holds the subjects' backlog rows until the commit (another ingest of them waits).
  for (const subject of await addToBacklog(tx, workspaceId, marked, settings.compileAfter)) {
    const data: CompileJobData = { workspace_id: workspaceId, subject };
    await boss.update(QUEUES.compile, data, { singletonKey: singletonKey(workspaceId, subject), startAfter: new Date(), db: bossDb(tx) });
  }
}

/**
 * Called once the ingest transaction has committed, for the subjects `enqueueCompiles` queued in
 * it. When a compile of the subject was already queued, no new job was sent; if a worker started
 * that compile before the ingest committed, it could not see the new episodes, and nothing was
 * left queued for them (they waited for the scheduled compile). A subject with no compile waiting
 * now that they are visible gets one; a job still waiting will read them when it starts.
 */
export async function requeueCompiles(boss: PgBoss, workspaceId: string, subjects: readonly string[], settings: JobSettings): Promise<void> {
  if (subjects.length === 0) return;
  // On the queue's own connections, as pg-boss's insert alone ran before: one statement, or two.
  await insertUnqueued(boss, sqlOfQueue(boss), workspaceId, subjects, settings);
}

/**
 * The queue's own connections as the store's port (`bossDb`'s inverse): pg-boss answers rows
 * only, which is all a store operation run there (`queuedJobKeys`) reads.
 */
function sqlOfQueue(boss: PgBoss): Sql {
  const db = boss.getDb();
  return { query: async (text, values) => ({ ...(await db.executeSql(text, values)), command: '', rowCount: null, oid: 0, fields: [] }) };
}

/** A compile job for each of these subjects that has none waiting to start. */
async function insertUnqueued(boss: PgBoss, tx: Sql, workspaceId: string, subjects: readonly string[], settings: JobSettings): Promise<void> {
  const waiting = await queuedJobKeys(tx, QUEUES.compile, subjects.map((s) => singletonKey(workspaceId, s)));
  const unqueued = waiting.size === 0 ? subjects : subjects.filter((s) => !waiting.has(singletonKey(workspaceId, s)));
  if (unqueued.length > 0) await boss.insert(QUEUES.compile, compileJobs(workspaceId, unqueued, settings), { db: bossDb(tx) });
}

function compileJobs(workspaceId: string, subjects: readonly string[], settings: Pick<JobSettings, 'debounceSeconds'>) {
  const startAfter = new Date(Date.now() + settings.debounceSeconds * 1000);
  return subjects.map((subject) => ({ data: { workspace_id: workspaceId, subject } satisfies CompileJobData, singletonKey: singletonKey(workspaceId, subject), startAfter }));
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

/**
 * How workers look for work. pg-boss waits `notifyPollingIntervalSeconds` (30 s by default) after
 * every job on a queue with NOTIFY, since a new job would wake it; but a backlog wakes no one, so
 * a queue of 1,000 jobs drained one per 30 s. Burst while the queue reports a backlog, and poll
 * every half second when it does not.
 */
export const POLLING = Object.freeze({ pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5, burstWhenReadyExceeds: 1 });

/** Registers the workers of this process. */
export async function startWorkers(
  boss: PgBoss,
  pool: Pool,
  settings: Pick<JobSettings, 'compileChunk' | 'changesRetentionDays' | 'retentionDays'>,
  /** Runs after a compile job (never a rebuild): the resolver asks about new candidates here. */
  afterCompile?: (workspaceId: string, subject: string) => Promise<void>,
): Promise<void> {
  const chunkSize = settings.compileChunk;
  await boss.work<CompileJobData, CompileResult>(QUEUES.compile, { localConcurrency: 2, ...POLLING }, async ([job]) =>
    loggedJob(QUEUES.compile, job!, { workspace_id: job!.data.workspace_id, subject: subjectRef(job!.data.workspace_id, job!.data.subject) }, async () => {
      const { workspace_id, subject, rebuild } = job!.data;
      // Any key of the workspace may poll a job's result: it is told as a key of no user sees it.
      if (rebuild) return rebuildSubject(pool, workspace_id, subject, { jobId: job!.id, viewer: WORKSPACE_VIEW });
      const result = await compileSubject(pool, workspace_id, subject, { jobId: job!.id, chunkSize, viewer: WORKSPACE_VIEW });
      await afterCompile?.(workspace_id, subject).catch((err: unknown) => log().warn({ event: 'after_compile_failed', err }, 'after-compile step failed'));
      return result;
    }),
  );

  const many = (queue: string) => async ([job]: Array<{ id: string; data: CompileManyData }>) =>
    loggedJob(queue, job!, { workspace_id: job!.data.workspace_id }, async () => {
      const { workspace_id, subjects, all, visible_to } = job!.data;
      const targets = all ? await withWorkspace(pool, allUsersOf(workspace_id), (tx) => subjectsOfWorkspace(tx, workspace_id)) : [...new Set(subjects ?? [])].sort();
      const visibleTo = visible_to ? { workspace_id, user: visible_to.user } : undefined;
      const result = await compileMany(pool, workspace_id, targets, job!.id, chunkSize, deadLetter(boss), visibleTo, visibleTo ?? WORKSPACE_VIEW);
      // An {all} job's result is kept by the queue and answered to whoever polls it: the totals and
      // the failed subjects, not one result per subject of the workspace (megabytes for a large one).
      return all ? manyTotals(result) : result;
    });
  await boss.work<CompileManyData>(QUEUES.compileMany, { localConcurrency: 4, ...POLLING }, many(QUEUES.compileMany));
  await boss.work<CompileManyData>(QUEUES.compileAll, POLLING, many(QUEUES.compileAll));

  await boss.work<ScheduledCompileData>(QUEUES.scheduledCompile, { pollingIntervalSeconds: 1 }, async ([job]) =>
    loggedJob(QUEUES.scheduledCompile, job!, {}, async () => {
      // A workspace's own schedule covers that workspace; the default covers the workspaces
      // that have none of their own, so no workspace is compiled twice a night or on another's.
      const own = job!.data?.workspace_id;
      const keyed = new Set((await boss.getSchedules(QUEUES.scheduledCompile)).map((s) => s.key).filter((k) => k !== DEFAULT_SCHEDULE_KEY));
      const covers = own ? (ws: string) => ws === own : (ws: string) => !keyed.has(ws);
      const compiled = await scheduledCompile(pool, job!.id, deadLetter(boss), covers);
      // The default schedule also ages out the change feed and the progress of old jobs, once a
      // night for every workspace.
      if (own) return compiled;
      return {
        ...compiled,
        changes_pruned: await pruneChangeFeed(pool, settings.changesRetentionDays),
        job_progress_pruned: await pruneJobProgress(pool, settings.retentionDays),
      };
    }),
  );
}

/**
 * One log line per job: queue, id, outcome, duration, and the counters a compile-many sums —
 * never its data (subject names). A failed job is logged and rethrown, so pg-boss retries it.
 */
async function loggedJob<T>(queue: string, job: { id: string }, fields: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const base = { event: 'job', queue, job_id: job.id, ...fields };
  try {
    const result = await run();
    const many = result !== null && typeof result === 'object' && 'totals' in result ? (result as unknown as ManyResult) : null;
    const summary = many ? { subjects: many.subjects, failed: many.failed.length, ...many.totals } : {};
    log().info({ ...base, outcome: 'completed', ...summary, duration_ms: Math.round(performance.now() - started) }, 'job completed');
    return result;
  } catch (err) {
    log().error({ ...base, outcome: 'failed', err, duration_ms: Math.round(performance.now() - started) }, 'job failed');
    throw err;
  }
}

/** A subject whose compile failed: named, with the error, and the others went on. */
export interface FailedSubject {
  subject: string;
  error: string;
}

export interface ManyResult {
  subjects: number;
  results: CompileResult[];
  totals: Omit<CompileResult, 'subject' | 'state_hash' | 'compiler_version'>;
  failed: FailedSubject[];
}

export type OnFailure = (workspaceId: string, failed: FailedSubject) => Promise<void>;

/** What an `{all}` job answers: how many subjects, the summed counters and the failed subjects. */
export function manyTotals(result: ManyResult): Omit<ManyResult, 'results'> {
  const { results: _results, ...rest } = result;
  return rest;
}

function failure(subject: string, err: unknown): FailedSubject {
  return { subject, error: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 2000) : String(err).slice(0, 2000) };
}

/** Puts a failed subject's compile on the dead-letter queue, where `canon jobs dead` and redrive find it. */
export function deadLetter(boss: PgBoss): OnFailure {
  return async (workspaceId, failed) => {
    await boss.send(QUEUES.compileDead, { workspace_id: workspaceId, subject: failed.subject, error: failed.error });
  };
}

/**
 * Queues a compile of every subject of a workspace, once: while one is queued or running, asking
 * again answers that job's id instead of queueing another behind it. The queue is exclusive (one
 * job per workspace queued or running), so a refused send means that job exists. It is looked up
 * by what it is, never by listing the workspace's past jobs: those pile up until deleted, each
 * with its result, and reading them at every request grew with the job history.
 */
export async function enqueueCompileAll(boss: PgBoss, pool: Pool, workspaceId: string): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const id = await boss.send(QUEUES.compileAll, { workspace_id: workspaceId, all: true } satisfies CompileManyData, { singletonKey: workspaceId });
    if (id) return id;
    const [queued] = await boss.findJobs<CompileManyData>(QUEUES.compileAll, { key: workspaceId, queued: true, limit: 1 });
    if (queued) return queued.id;
    // Running: it reported its progress as it started, so it is among the workspace's latest reports.
    const recent = await withWorkspace(pool, allUsersOf(workspaceId), (tx) => recentlyReportedJobs(tx, workspaceId, 10));
    for (const candidate of recent) {
      const job = await boss.getJobById<CompileManyData>(QUEUES.compileAll, candidate);
      if (job && job.state === 'active' && job.singletonKey === workspaceId) return job.id;
    }
    // It finished between the calls, or started and has not reported yet: try again shortly.
    await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
  }
  throw new Error('the queue refused the job');
}

/**
 * Compiles several subjects, two at a time (each under its own lock, like a child job), and
 * sums the counters. Used by `{all}` / `{subjects}` jobs and by the synchronous API. A subject
 * that fails is reported by name (and dead-lettered when `onFailure` says so); the others go on.
 */
export async function compileMany(
  pool: Pool,
  workspaceId: string,
  subjects: readonly string[],
  jobId: string | null = null,
  chunkSize?: number,
  onFailure?: OnFailure,
  visibleTo?: CompileOptions['visibleTo'],
  /** Whose view each result is told in (`CompileOptions.viewer`); `visibleTo` when absent. */
  viewer: CompileOptions['viewer'] = visibleTo,
): Promise<ManyResult> {
  const results: Array<CompileResult | undefined> = new Array(subjects.length);
  const failed: FailedSubject[] = [];
  const among = (names: string[]) => withWorkspace(pool, allUsersOf(workspaceId), (tx) => subjectsAmong(tx, workspaceId, names));
  const stillThere = async (subject: string) => (await among([subject])).length > 0;
  const remainingOf = async (list: FailedSubject[]) => {
    const there = new Set(await among(list.map((f) => f.subject)));
    return list.filter((f) => there.has(f.subject));
  };
  // A job reports how far it is, for whoever polls GET /v1/jobs/{id}.
  const progress = (done: number) =>
    jobId ? withWorkspace(pool, allUsersOf(workspaceId), (tx) => saveJobProgress(tx, workspaceId, jobId, done, subjects.length)) : Promise.resolve();
  await progress(0);
  let next = 0;
  let done = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < subjects.length) {
        const i = next++;
        try {
          results[i] = await compileSubject(pool, workspaceId, subjects[i]!, { jobId, ...(chunkSize ? { chunkSize } : {}), ...(visibleTo ? { visibleTo } : {}), ...(viewer ? { viewer } : {}) });
        } catch (err) {
          const f = failure(subjects[i]!, err);
          // A subject erased while the job ran (its compile then fails for want of its rows) is
          // named nowhere afterwards: not among the failures the job keeps, not in a dead letter.
          if (!(await stillThere(f.subject))) continue;
          failed.push(f);
          await onFailure?.(workspaceId, f);
        }
        await progress(++done);
      }
    }),
  );
  const compiled = results.filter((r): r is CompileResult => r !== undefined);
  // An erasure that committed after a subject failed has deleted the dead letter naming it; the
  // job's own result, written after this, must not name it either.
  const kept = failed.length === 0 ? failed : await remainingOf(failed);
  kept.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  return { subjects: subjects.length, results: compiled, totals: sumResults(compiled), failed: kept };
}

export function sumResults(results: readonly CompileResult[]): ManyResult['totals'] {
  const totals = zeroCounters();
  for (const r of results) for (const k of COUNTERS) totals[k] += r[k];
  return totals;
}

/**
 * The scheduled compile: compile every subject with pending episodes and rebuild every subject
 * compiled under another compiler version or other policies than the ones in force.
 */
export async function scheduledCompile(
  pool: Pool,
  jobId: string | null = null,
  onFailure?: OnFailure,
  covers: (workspaceId: string) => boolean = () => true,
): Promise<{ compiled: number; rebuilt: number; totals: ManyResult['totals']; failed: Array<FailedSubject & { workspace_id: string }> }> {
  // Finding the work spans workspaces (the system role); each compile then runs in its own.
  const { pending, stale } = await withSystem(pool, async (tx) => {
    const fingerprints = new Map<string, string>();
    for (const id of await workspaceIds(tx)) fingerprints.set(id, (await loadPolicySet(tx, id)).fingerprint);
    return {
      pending: (await subjectsWithPending(tx)).filter((s) => covers(s.workspace_id)),
      stale: (await staleSubjects(tx, COMPILER_VERSION, (ws) => fingerprints.get(ws) ?? '')).filter((s) => covers(s.workspace_id)),
    };
  });
  const results: CompileResult[] = [];
  const failed: Array<FailedSubject & { workspace_id: string }> = [];
  // One subject that cannot compile must not stop the night's work for every other one.
  const attempt = async (workspaceId: string, subject: string, run: () => Promise<CompileResult>) => {
    try {
      results.push(await run());
      return true;
    } catch (err) {
      const f = failure(subject, err);
      failed.push({ workspace_id: workspaceId, ...f });
      await onFailure?.(workspaceId, f);
      return false;
    }
  };
  const staleKeys = new Set(stale.map((s) => JSON.stringify([s.workspace_id, s.subject])));
  let rebuilt = 0;
  for (const s of stale) if (await attempt(s.workspace_id, s.subject, () => rebuildSubject(pool, s.workspace_id, s.subject, { jobId, viewer: WORKSPACE_VIEW }))) rebuilt += 1;
  let compiled = 0;
  for (const s of pending) {
    if (staleKeys.has(JSON.stringify([s.workspace_id, s.subject]))) continue;
    if (await attempt(s.workspace_id, s.subject, () => compileSubject(pool, s.workspace_id, s.subject, { jobId, viewer: WORKSPACE_VIEW }))) compiled += 1;
  }
  return { compiled, rebuilt, totals: sumResults(results), failed };
}
