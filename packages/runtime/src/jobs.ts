import type { PgBoss } from 'pg-boss';
import { COMPILER_VERSION } from '@canon/core';
import { saveJobProgress, subjectsWithPendingAtLeast, staleSubjects, subjectsOfWorkspace, subjectsWithPending, type Pool, type PoolClient } from '@canon/store';
import { compileSubject, rebuildSubject, type CompileResult } from './compile.js';
import { loadPolicySet } from './policies.js';
import { withSystem, withWorkspace } from './scope.js';

export const QUEUES = Object.freeze({
  compile: 'compile',
  compileDead: 'compile-dead',
  compileMany: 'compile-many',
  nightly: 'nightly',
});

export const DEFAULT_NIGHTLY_CRON = '0 3 * * *';

export interface JobSettings {
  /** Seconds a burst's first episode waits for the rest before its subject is compiled. */
  debounceSeconds: number;
  /** Pending episodes of one subject that trigger a compile at once, debounce or not. */
  compileAfter: number;
  compileChunk: number;
  retentionDays: number;
  nightlyCron: string | undefined;
  nightlyTimeZone: string | undefined;
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
}

/**
 * pg-boss runs inside the caller's transaction through this one-method port, so a job is
 * enqueued with the rows that cause it (both or neither).
 */
export function bossDb(tx: PoolClient): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } {
  return { executeSql: (text, values) => tx.query(text, values) };
}

const singletonKey = (workspaceId: string, subject: string) => JSON.stringify([workspaceId, subject]);

async function ensureQueue(boss: PgBoss, name: string, options: Parameters<PgBoss['createQueue']>[1]): Promise<void> {
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

/** Creates the queues and the nightly schedule (idempotent: every start runs it). */
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
    // A killed worker stops heart-beating: its job is retried within seconds, not at expiry.
    heartbeatSeconds: 10,
    expireInSeconds: 900,
    deadLetter: QUEUES.compileDead,
    deleteAfterSeconds,
    // Wake a worker at once rather than at its next poll.
    notify: true,
  });
  await ensureQueue(boss, QUEUES.compileMany, { policy: 'standard', retryLimit: 2, heartbeatSeconds: 10, expireInSeconds: 3600, deleteAfterSeconds, notify: true });
  await ensureQueue(boss, QUEUES.nightly, { policy: 'stately', retryLimit: 2, heartbeatSeconds: 10, expireInSeconds: 3600, deleteAfterSeconds });
  // The environment, when it names a schedule, wins; otherwise one set with `canon schedule set`
  // survives restarts, and a fresh database gets 03:00 UTC.
  const existing = await boss.getSchedules(QUEUES.nightly);
  if (settings.nightlyCron || settings.nightlyTimeZone || existing.length === 0) {
    await boss.schedule(QUEUES.nightly, settings.nightlyCron ?? existing[0]?.cron ?? DEFAULT_NIGHTLY_CRON, {}, {
      tz: settings.nightlyTimeZone ?? existing[0]?.timezone ?? 'UTC',
    });
  }
}

/**
 * Called in the ingest transaction: a compile of each touched subject, debounced. The first
 * episode of a burst queues a compile `debounceSeconds` ahead; later ones find it queued and
 * ride on it, unless the subject has piled up `compileAfter` episodes, which pulls it forward.
 */
export async function enqueueCompiles(boss: PgBoss, tx: PoolClient, workspaceId: string, subjects: readonly string[], settings: JobSettings): Promise<void> {
  if (subjects.length === 0) return;
  // One statement for the whole batch: the stately queue keeps the first job per subject and
  // quietly drops the others (a compile already queued will see these episodes too).
  const startAfter = new Date(Date.now() + settings.debounceSeconds * 1000);
  await boss.insert(
    QUEUES.compile,
    subjects.map((subject) => ({ data: { workspace_id: workspaceId, subject } satisfies CompileJobData, singletonKey: singletonKey(workspaceId, subject), startAfter })),
    { db: bossDb(tx) },
  );
  for (const subject of await subjectsWithPendingAtLeast(tx, workspaceId, subjects, settings.compileAfter)) {
    const data: CompileJobData = { workspace_id: workspaceId, subject };
    await boss.update(QUEUES.compile, data, { singletonKey: singletonKey(workspaceId, subject), startAfter: new Date(), db: bossDb(tx) });
  }
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

/** Registers the workers of this process. */
export async function startWorkers(boss: PgBoss, pool: Pool, settings: Pick<JobSettings, 'compileChunk'>): Promise<void> {
  const chunkSize = settings.compileChunk;
  await boss.work<CompileJobData, CompileResult>(QUEUES.compile, { localConcurrency: 2, pollingIntervalSeconds: 0.5 }, async ([job]) => {
    const { workspace_id, subject, rebuild } = job!.data;
    return rebuild
      ? rebuildSubject(pool, workspace_id, subject, { jobId: job!.id })
      : compileSubject(pool, workspace_id, subject, { jobId: job!.id, chunkSize });
  });

  await boss.work<CompileManyData>(QUEUES.compileMany, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    const { workspace_id, subjects, all } = job!.data;
    const targets = all ? await withWorkspace(pool, workspace_id, (tx) => subjectsOfWorkspace(tx, workspace_id)) : [...new Set(subjects ?? [])].sort();
    return compileMany(pool, workspace_id, targets, job!.id, chunkSize);
  });

  await boss.work(QUEUES.nightly, { pollingIntervalSeconds: 1 }, async ([job]) => nightly(pool, job!.id));
}

export interface ManyResult {
  subjects: number;
  results: CompileResult[];
  totals: Omit<CompileResult, 'subject' | 'state_hash' | 'compiler_version'>;
}

/**
 * Compiles several subjects, two at a time (each under its own lock, like a child job), and
 * sums the counters. Used by `{all}` / `{subjects}` jobs and by the synchronous API.
 */
export async function compileMany(pool: Pool, workspaceId: string, subjects: readonly string[], jobId: string | null = null, chunkSize?: number): Promise<ManyResult> {
  const results: CompileResult[] = new Array(subjects.length);
  // A job reports how far it is, for whoever polls GET /v1/jobs/{id}.
  const progress = (done: number) =>
    jobId ? withWorkspace(pool, workspaceId, (tx) => saveJobProgress(tx, workspaceId, jobId, done, subjects.length)) : Promise.resolve();
  await progress(0);
  let next = 0;
  let done = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < subjects.length) {
        const i = next++;
        results[i] = await compileSubject(pool, workspaceId, subjects[i]!, { jobId, ...(chunkSize ? { chunkSize } : {}) });
        await progress(++done);
      }
    }),
  );
  return { subjects: subjects.length, results, totals: sumResults(results) };
}

export function sumResults(results: readonly CompileResult[]): ManyResult['totals'] {
  const totals = { episodes_processed: 0, memories_created: 0, memories_updated: 0, memories_superseded: 0, conflicts_opened: 0, tombstoned: 0 };
  for (const r of results) {
    for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r[k];
  }
  return totals;
}

/**
 * The nightly job: compile every subject with pending episodes and rebuild every subject
 * compiled under another compiler version or other policies than the ones in force.
 */
export async function nightly(pool: Pool, jobId: string | null = null): Promise<{ compiled: number; rebuilt: number; totals: ManyResult['totals'] }> {
  // Finding the work spans workspaces (the system role); each compile then runs in its own.
  const { pending, stale } = await withSystem(pool, async (tx) => {
    const fingerprints = new Map<string, string>();
    const { rows: workspaces } = await tx.query<{ id: string }>('SELECT id FROM workspaces');
    for (const w of workspaces) fingerprints.set(w.id, (await loadPolicySet(tx, w.id)).fingerprint);
    return {
      pending: await subjectsWithPending(tx),
      stale: await staleSubjects(tx, COMPILER_VERSION, (ws) => fingerprints.get(ws) ?? ''),
    };
  });
  const results: CompileResult[] = [];
  const staleKeys = new Set(stale.map((s) => JSON.stringify([s.workspace_id, s.subject])));
  for (const s of stale) results.push(await rebuildSubject(pool, s.workspace_id, s.subject, { jobId }));
  let compiled = 0;
  for (const s of pending) {
    if (staleKeys.has(JSON.stringify([s.workspace_id, s.subject]))) continue;
    results.push(await compileSubject(pool, s.workspace_id, s.subject, { jobId }));
    compiled += 1;
  }
  return { compiled, rebuilt: stale.length, totals: sumResults(results) };
}
