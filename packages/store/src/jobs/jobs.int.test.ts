import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { getJobProgress } from './get-job-progress.js';
import { saveJobProgress } from './save-job-progress.js';

// How far a many-subject job has got, reported by its workers.

let db: Awaited<ReturnType<typeof storeDatabase>>;
let pool: Pool;
beforeAll(async () => {
  db = await storeDatabase();
  pool = db.pool;
});
afterAll(() => db?.close());

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
