import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { deleteJobProgressBefore } from './delete-job-progress-before.js';
import { getJobProgress } from './get-job-progress.js';
import { queuedJobKeys } from './queued-job-keys.js';
import { recentlyReportedJobs } from './recently-reported-jobs.js';
import { saveJobProgress } from './save-job-progress.js';

// How far a many-subject job has got, reported by its workers.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const job = '00000000-0000-4000-8000-000000000001';

describe('saveJobProgress', () => {
  it('never moves a count back: a late, smaller report leaves the larger one', async () => {
    await saveJobProgress(pool, 'w-save', job, 3, 10);
    await saveJobProgress(pool, 'w-save', job, 2, 10);
    expect(await getJobProgress(pool, 'w-save', job)).toEqual({ done: 3, total: 10 });
    await saveJobProgress(pool, 'w-save', job, 7, 12);
    expect(await getJobProgress(pool, 'w-save', job)).toEqual({ done: 7, total: 12 });
  });
});

describe('getJobProgress', () => {
  it('is null for a job that reported nothing, or another workspace\'s job', async () => {
    await saveJobProgress(pool, 'w-get', job, 1, 2);
    expect(await getJobProgress(pool, 'w-get', job)).toEqual({ done: 1, total: 2 });
    expect(await getJobProgress(pool, 'w-other', job)).toBeNull();
    expect(await getJobProgress(pool, 'w-get', '00000000-0000-4000-8000-000000000002')).toBeNull();
  });
});

describe('recentlyReportedJobs', () => {
  it('names the jobs that reported last first, of this workspace only, up to the limit', async () => {
    const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
    for (const id of ids) {
      await saveJobProgress(pool, 'w-recent', id, 0, 5);
      // updated_at is kept to the millisecond: space the reports so their order is theirs.
      await new Promise((r) => setTimeout(r, 5));
    }
    await saveJobProgress(pool, 'w-recent-other', '00000000-0000-4000-8000-00000000000d', 0, 1);
    expect(await recentlyReportedJobs(pool, 'w-recent', 10)).toEqual([...ids].reverse());
    expect(await recentlyReportedJobs(pool, 'w-recent', 2)).toEqual([ids[2], ids[1]]);
    expect(await recentlyReportedJobs(pool, 'w-none', 10)).toEqual([]);
  });
});

describe('deleteJobProgressBefore', () => {
  it('deletes the progress last reported before the instant, in every workspace, and keeps the rest', async () => {
    const old = '00000000-0000-4000-8000-0000000000d1';
    const recent = '00000000-0000-4000-8000-0000000000d2';
    await saveJobProgress(pool, 'w-prune-1', old, 1, 2);
    await saveJobProgress(pool, 'w-prune-2', old, 1, 2);
    await saveJobProgress(pool, 'w-prune-1', recent, 1, 2);
    await pool.query(`UPDATE job_progress SET updated_at = now() - interval '8 days' WHERE job_id = $1`, [old]);
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
    expect(await deleteJobProgressBefore(pool, weekAgo)).toBe(2);
    expect(await getJobProgress(pool, 'w-prune-1', old)).toBeNull();
    expect(await getJobProgress(pool, 'w-prune-2', old)).toBeNull();
    expect(await getJobProgress(pool, 'w-prune-1', recent)).toEqual({ done: 1, total: 2 });
    expect(await deleteJobProgressBefore(pool, weekAgo)).toBe(0);
  });
});

describe('queuedJobKeys', () => {
  it('names the keys with a job of the queue waiting to start, and no others', async () => {
    const job = (name: string, key: string, state: string) =>
      pool.query(`INSERT INTO pgboss.job (name, data, singleton_key, state) VALUES ($1, '{}', $2, $3::pgboss.job_state)`, [name, key, state]);
    await job('compile', 'k-waiting', 'created');
    await job('compile', 'k-running', 'active');
    await job('compile', 'k-retrying', 'retry');
    await job('compile', 'k-done', 'completed');
    await job('compile-many', 'k-elsewhere', 'created');
    const keys = ['k-waiting', 'k-running', 'k-retrying', 'k-done', 'k-elsewhere', 'k-none'];
    expect([...(await queuedJobKeys(pool, 'compile', keys))]).toEqual(['k-waiting']);
    expect(await queuedJobKeys(pool, 'compile', [])).toEqual(new Set());
  });
});
