import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { compileDurationStats } from './compile-duration-stats.js';
import { insertCompileRun, type CompileRunRow } from './insert-compile-run.js';
import { insertMarkers } from './insert-markers.js';

// The compile's audit: one row per run, and a marker per episode a run consumed.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const run = (n: number, kind: CompileRunRow['kind'], duration_ms: number): CompileRunRow => ({
  workspace_id: 'w',
  id: uuid(n),
  subject: 's',
  kind,
  job_id: null,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms,
  result: { memories_created: n },
});

describe('insertCompileRun', () => {
  it('records a run, stamped by the database when it finished', async () => {
    await insertCompileRun(pool, run(1, 'compile', 12.5));
    const { rows } = await pool.query('SELECT id, kind, duration_ms, result, finished_at > started_at AS stamped FROM compile_runs WHERE id = $1', [uuid(1)]);
    expect(rows).toEqual([{ id: uuid(1), kind: 'compile', duration_ms: 12.5, result: { memories_created: 1 }, stamped: true }]);
    await expect(insertCompileRun(pool, run(1, 'compile', 1))).rejects.toMatchObject({ code: '23505' });
  });
});

describe('compileDurationStats', () => {
  it('counts and sums run durations per kind', async () => {
    const before = new Map((await compileDurationStats(pool)).map((s) => [s.kind, s]));
    await insertCompileRun(pool, run(2, 'rebuild', 100));
    await insertCompileRun(pool, run(3, 'rebuild', 50.5));
    const after = new Map((await compileDurationStats(pool)).map((s) => [s.kind, s]));
    const was = before.get('rebuild') ?? { count: 0, sum_ms: 0 };
    expect(after.get('rebuild')).toEqual({ kind: 'rebuild', count: was.count + 2, sum_ms: was.sum_ms + 150.5 });
    expect(after.get('compile')).toEqual(before.get('compile'));
  });
});

describe('insertMarkers', () => {
  it('marks each episode with the run, compiler version and policies that consumed it', async () => {
    await insertMarkers(pool, 'w', 's', [uuid(10), uuid(11)], { id: uuid(1), compiler_version: 'c1', policy_fingerprint: 'p1' });
    await insertMarkers(pool, 'w', 's', [], { id: uuid(1), compiler_version: 'c1', policy_fingerprint: 'p1' });
    const { rows } = await pool.query('SELECT episode_id, subject, compile_run_id, compiler_version, policy_fingerprint FROM episode_markers WHERE workspace_id = $1 ORDER BY 1', ['w']);
    expect(rows).toEqual([uuid(10), uuid(11)].map((episode_id) => ({ episode_id, subject: 's', compile_run_id: uuid(1), compiler_version: 'c1', policy_fingerprint: 'p1' })));
    // An episode is consumed once.
    await expect(insertMarkers(pool, 'w', 's', [uuid(10)], { id: uuid(2), compiler_version: 'c1', policy_fingerprint: 'p1' })).rejects.toMatchObject({ code: '23505' });
  });
});
