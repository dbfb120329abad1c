import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYZE_AFTER_CREATED } from '@canon/runtime/internals';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// A compile that fills the tables with a workspace they have no statistics of (a backfill, a
// first sync) has them analyzed before it returns: until then the planner reads the workspace as
// a row or so, and every lookup by id in it scans all of the workspace's rows.

let canon: TestCanon;
let owner: Principal;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner', { workspace: 'backfill' })).principal;
});
afterAll(() => canon.close());

/** ANALYZEs of `memories` run by a session (autovacuum's are counted apart, and it is off for the table here). */
const analyzed = async () =>
  (await canon.runtime.pool.query<{ n: number }>(`SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = 'memories'`)).rows[0]!.n;
const plannedRows = async () => {
  const { rows } = await canon.runtime.pool.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(`EXPLAIN (FORMAT JSON) SELECT id FROM memories WHERE workspace_id = 'backfill'`);
  return rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
};
const settings = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ idempotency_key: `s-${from + i}`, subject: 'service:settings', body: { claims: [{ predicate: `setting_${from + i}`, value: from + i }] } }));

describe('statistics after a large compile', () => {
  it('leaves a small compile to autovacuum, and has the tables analyzed after one that creates ANALYZE_AFTER_CREATED memories', async () => {
    // Autovacuum would analyze the table on its own once a tenth of it changed, whether the
    // compile did or not: off for this database's table, so what is counted is the compile's.
    await canon.runtime.pool.query('ALTER TABLE memories SET (autovacuum_enabled = false)');
    await canon.runtime.pool.query('ANALYZE memories');
    const before = await analyzed();
    await canon.runtime.ingest(owner, settings(0, 10));
    await canon.runtime.compile(owner, { subject: 'service:settings' });
    expect(await analyzed()).toBe(before);

    for (let i = 10; i < 10 + ANALYZE_AFTER_CREATED; i += 1000) await canon.runtime.ingest(owner, settings(i, Math.min(1000, 10 + ANALYZE_AFTER_CREATED - i)));
    const out = await canon.runtime.compile(owner, { subject: 'service:settings' });
    if (out.async) throw new Error('compiled as a job');
    expect(out.result).toMatchObject({ memories_created: ANALYZE_AFTER_CREATED });
    expect(await analyzed()).toBe(before + 1);
    // The planner now knows the workspace's size, so a lookup of a few ids in it goes by key.
    expect(await plannedRows()).toBeGreaterThan(ANALYZE_AFTER_CREATED / 2);
  });
});
