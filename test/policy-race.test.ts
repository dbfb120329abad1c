import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// A change of policies and a compile under way take turns: the compile read the old policies,
// so the change must find the memories it commits and rebuild them — or the subject kept them
// under the old policies until something else compiled it.

let canon: TestCanon;
let owner: { key: string; principal: Principal };
let ann: Principal;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = await canon.key('owner');
  ann = (await canon.key('member', { user: 'ann' })).principal;
});
afterAll(() => canon.close());

it('a policy change made while a compile of the old policies is under way rebuilds what that compile commits', async () => {
  const subject = 'service:race';
  const claim = (key: string, predicate: string, value: string, at: string) => ({ idempotency_key: key, subject, kind: 'claim', body: { claims: [{ predicate, value, effective_from: at }] } });
  await canon.runtime.ingest(ann, [claim('r-0', 'owner team', 'core', '2020-01-01T00:00:00Z')]);
  await canon.runtime.compile(ann, { subject });
  // A predicate new to the subject: no memory of it is committed yet when the change looks.
  await canon.runtime.ingest(ann, [claim('r-1', 'region', 'eu', '2020-01-01T00:00:00Z'), claim('r-2', 'region', 'us', '2021-01-01T00:00:00Z')]);

  // Holding the subject's row keeps the compile at its last write, its memories folded under the old policies.
  const holder = await canon.runtime.pool.connect();
  let compiling: Promise<unknown>;
  let putting: Promise<Response>;
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM subjects WHERE subject = $1 FOR UPDATE', [subject]);
    compiling = canon.runtime.compile(ann, { subject });
    for (let i = 0; i < 400; i++) {
      const { rows } = await canon.runtime.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%subjects%' AND pid <> pg_backend_pid()");
      if (rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    putting = Promise.resolve(
      canon.request('/v1/policies', { method: 'PUT', key: owner.key, json: { predicates: { region: { cardinality: 'many', mode: 'flag', min_role: 'reader' } } } }),
    );
    await new Promise((r) => setTimeout(r, 300));
    await holder.query('COMMIT');
  } finally {
    holder.release();
  }
  await compiling!;
  const put = await putting!;
  expect(put.status, await put.clone().text()).toBe(200);
  const { memories } = await (await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key: owner.key })).json();
  const region = memories.find((m: { predicate: string }) => m.predicate === 'region');
  expect(region.current.map((v: { value: string }) => v.value).sort()).toEqual(['eu', 'us']);
  expect((await canon.runtime.verify(owner.principal, subject)).ok).toBe(true);
});
