import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORD_LIMIT } from '@canon/core';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// A subject of many keys sharing a word ("setting 0" … "setting 500"): the word proposes no pair
// once more than WORD_LIMIT memories hold it, and the compile that takes it past the limit
// recomputes every pair, as a rebuild would.

let canon: TestCanon;
let owner: Principal;
const SUBJECT = 'service:settings';

const setting = (i: number) => ({ idempotency_key: `s-${i}`, subject: SUBJECT, body: { claims: [{ predicate: `setting ${i}`, value: i }] } });
async function stored(): Promise<Array<{ id: string; candidates: unknown; partner_sides: unknown }>> {
  const { rows } = await canon.runtime.pool.query(`SELECT id, candidates, partner_sides FROM memories WHERE subject = $1 ORDER BY id`, [SUBJECT]);
  return rows;
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).principal;
});
afterAll(() => canon.close());

describe('a word past WORD_LIMIT', () => {
  it('compiles the key that takes a shared word past the limit, and stores what a rebuild stores', async () => {
    const first = Array.from({ length: WORD_LIMIT }, (_, i) => setting(i));
    for (let i = 0; i < first.length; i += 250) await canon.runtime.ingest(owner, first.slice(i, i + 250));
    await canon.runtime.compile(owner, { subject: SUBJECT });
    await canon.runtime.ingest(owner, [setting(WORD_LIMIT), { idempotency_key: 'note', subject: SUBJECT, body: { text: 'The setting 7 knob is documented on the wiki.' } }]);
    const out = await canon.runtime.compile(owner, { subject: SUBJECT });
    if (out.async) throw new Error('compiled as a job');
    expect(out.result).toMatchObject({ memories_created: 2 });
    const incremental = await stored();
    expect(incremental).toHaveLength(WORD_LIMIT + 2);
    expect((await canon.runtime.verify(owner, SUBJECT)).differences).toEqual([]);
    await canon.runtime.rebuild(owner, SUBJECT);
    expect(await stored()).toEqual(incremental);
  });
});
