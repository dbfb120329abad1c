import { describe, expect, it, vi } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { changeAt } from './change-at.js';
import { changesAfter, type ChangesQuery } from './changes-after.js';
import { changesHead } from './changes-head.js';
import { deleteChangesBefore } from './delete-changes-before.js';
import { deleteChangesOfSubjects } from './delete-changes-of-subjects.js';
import { insertChanges } from './insert-changes.js';
import type { ChangeRow, NewChange } from './rows.js';

// The feed of memory changes, read in commit order as far as it is settled. Other databases'
// transactions on the same server hold the settled horizon back for a moment, so reads of the
// feed wait for it.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const run = '00000000-0000-4000-8000-000000000001';
const change = (subject: string, predicate: string, n: number): NewChange => ({
  memory_id: `m-${subject}-${predicate}`,
  subject,
  key: `${subject}|${predicate}`,
  predicate,
  scope: 'workspace',
  owner: null,
  change: n === 0 ? 'created' : 'changed',
  before: n === 0 ? null : { status: 'in_force', values: [n - 1] },
  after: { status: 'in_force', values: [n] },
  episode_id: null,
});

/** The settled page once it holds `count` changes. */
async function settled(workspaceId: string, q: Partial<ChangesQuery>, count: number): Promise<ChangeRow[]> {
  let out: ChangeRow[] = [];
  await vi.waitFor(async () => {
    const page = await changesAfter(pool, workspaceId, { after: null, limit: 100, ...q });
    if (!page.ok) throw new Error('a page');
    out = page.changes;
    expect(out).toHaveLength(count);
  }, { timeout: 20_000, interval: 100 });
  return out;
}

describe('insertChanges', () => {
  it('records a compile\'s changes in order, with the run that made them', async () => {
    await insertChanges(pool, 'w-insert', run, [change('s', 'a', 0), change('s', 'b', 0), change('s', 'a', 1)]);
    await insertChanges(pool, 'w-insert', null, []);
    const rows = await settled('w-insert', {}, 3);
    expect(rows.map((r) => [r.key, r.change, r.after])).toEqual([
      ['s|a', 'created', { status: 'in_force', values: [0] }],
      ['s|b', 'created', { status: 'in_force', values: [0] }],
      ['s|a', 'changed', { status: 'in_force', values: [1] }],
    ]);
    expect(rows[0]).toEqual(expect.objectContaining({ compile_run_id: run, before: null, episode_id: null, changed_at: expect.stringMatching(/Z$/) }));
    expect(rows[0]).not.toHaveProperty('owner');
  });
});

describe('changesAfter', () => {
  it('pages after a cursor, filtered by subject or predicate; past the end is empty, a bad cursor is refused', async () => {
    await insertChanges(pool, 'w-after', run, [change('s', 'a', 0), change('t', 'a', 0), change('s', 'b', 0)]);
    const all = await settled('w-after', {}, 3);
    const next = await changesAfter(pool, 'w-after', { after: all[0]!.cursor, limit: 1 });
    expect(next).toEqual({ ok: true, changes: [all[1]] });
    expect((await settled('w-after', { subject: 's' }, 2)).map((r) => r.key)).toEqual(['s|a', 's|b']);
    expect((await settled('w-after', { predicate: 'a' }, 2)).map((r) => r.key)).toEqual(['s|a', 't|a']);
    expect(await changesAfter(pool, 'w-after', { after: all[2]!.cursor, limit: 10 })).toEqual({ ok: true, changes: [] });
    expect(await changesAfter(pool, 'w-after', { after: '1.x', limit: 10 })).toEqual({ ok: false, reason: 'bad_cursor' });
    expect(await changesAfter(pool, 'w-elsewhere', { after: null, limit: 10 })).toEqual({ ok: true, changes: [] });
  });
});

describe('changeAt', () => {
  it('reads one change by its cursor, and null for an unknown or malformed one', async () => {
    await insertChanges(pool, 'w-at', run, [change('s', 'a', 0)]);
    const [row] = await settled('w-at', {}, 1);
    expect(await changeAt(pool, 'w-at', row!.cursor)).toEqual(row);
    expect(await changeAt(pool, 'w-other', row!.cursor)).toBeNull();
    expect(await changeAt(pool, 'w-at', '1.1')).toBeNull();
    expect(await changeAt(pool, 'w-at', 'garbage')).toBeNull();
  });
});

describe('changesHead', () => {
  it('is the start of the feed for an empty workspace, then its last settled change', async () => {
    expect(await changesHead(pool, 'w-head')).toEqual({ tx: '0', position: '0' });
    await insertChanges(pool, 'w-head', run, [change('s', 'a', 0), change('s', 'a', 1)]);
    const rows = await settled('w-head', {}, 2);
    expect(await changesHead(pool, 'w-head')).toEqual({ tx: rows[1]!.cursor.split('.')[0], position: rows[1]!.cursor.split('.')[1] });
  });

  it('is the last change by number, where positions cross a power of ten (99, then 100)', async () => {
    await pool.query('ALTER TABLE changes ALTER COLUMN position RESTART WITH 95');
    await insertChanges(pool, 'w-head-digits', run, Array.from({ length: 10 }, (_, i) => change('s', `k${i}`, 0)));
    const rows = await settled('w-head-digits', {}, 10);
    expect(rows.map((r) => Number(r.cursor.split('.')[1]))).toEqual(Array.from({ length: 10 }, (_, i) => 95 + i));
    expect(await changesHead(pool, 'w-head-digits')).toMatchObject({ position: '104' });
  });
});

describe('deleteChangesOfSubjects', () => {
  it('deletes the changes of these subjects and counts them', async () => {
    await insertChanges(pool, 'w-erase', run, [change('s', 'a', 0), change('t', 'a', 0), change('u', 'a', 0)]);
    expect(await deleteChangesOfSubjects(pool, 'w-erase', ['s', 'u', 'none'])).toBe(2);
    expect((await settled('w-erase', {}, 1)).map((r) => r.subject)).toEqual(['t']);
    expect(await deleteChangesOfSubjects(pool, 'w-erase', [])).toBe(0);
  });
});

describe('deleteChangesBefore', () => {
  it('deletes, in every workspace, the changes made before an instant', async () => {
    await insertChanges(pool, 'w-retain', run, [change('old', 'a', 0), change('new', 'a', 0)]);
    await insertChanges(pool, 'w-retain-2', run, [change('old', 'a', 0)]);
    await pool.query(`UPDATE changes SET changed_at = '2000-01-01T00:00:00Z' WHERE subject = 'old'`);
    expect(await deleteChangesBefore(pool, '2001-01-01T00:00:00.000Z')).toBe(2);
    expect((await settled('w-retain', {}, 1)).map((r) => r.subject)).toEqual(['new']);
  });
});
