import { describe, expect, it } from 'vitest';
import { inWorkspace, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { deletePending } from './delete-pending.js';
import { insertPending } from './insert-pending.js';
import { subjectsWithPendingAtLeast } from './subjects-with-pending-at-least.js';
import { subjectsWithPending } from './subjects-with-pending.js';
import { takePending } from './take-pending.js';
import { totalPending } from './total-pending.js';

// The backlog of episodes waiting for a compile of their subject.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('insertPending', () => {
  it('marks episodes as waiting, once however often it is told', async () => {
    await insertPending(pool, 'w-insert', [
      { subject: 's', episode_id: id(1) },
      { subject: 's', episode_id: id(2) },
    ]);
    await insertPending(pool, 'w-insert', [{ subject: 's', episode_id: id(1) }]);
    expect((await takePending(pool, 'w-insert', 's', 10)).sort()).toEqual([id(1), id(2)]);
  });
});

describe('takePending', () => {
  it('takes the oldest first, up to the limit, of one subject only', async () => {
    await insertPending(pool, 'w-take', [{ subject: 's', episode_id: id(9) }]);
    // created_at is kept to the millisecond: the second insert must come a whole one later.
    await new Promise((r) => setTimeout(r, 5));
    await insertPending(pool, 'w-take', [
      { subject: 's', episode_id: id(3) },
      { subject: 't', episode_id: id(1) },
    ]);
    expect(await takePending(pool, 'w-take', 's', 1)).toEqual([id(9)]);
    expect(await takePending(pool, 'w-take', 's', 5)).toEqual([id(9), id(3)]);
    expect(await takePending(pool, 'w-take', 'none', 5)).toEqual([]);
  });
});

describe('deletePending', () => {
  it('removes the named episodes of a subject and leaves the rest waiting', async () => {
    await insertPending(pool, 'w-delete', [
      { subject: 's', episode_id: id(1) },
      { subject: 's', episode_id: id(2) },
      { subject: 't', episode_id: id(1) },
    ]);
    await deletePending(pool, 'w-delete', 's', [id(1)]);
    expect(await takePending(pool, 'w-delete', 's', 10)).toEqual([id(2)]);
    expect(await takePending(pool, 'w-delete', 't', 10)).toEqual([id(1)]);
  });
});

describe('subjectsWithPendingAtLeast', () => {
  it('names the subjects with at least n episodes waiting, inside the workspace\'s transaction', async () => {
    await insertPending(pool, 'w-least', [
      { subject: 'a', episode_id: id(1) },
      { subject: 'a', episode_id: id(2) },
      { subject: 'b', episode_id: id(3) },
    ]);
    const atLeast = (subjects: string[], n: number) => inWorkspace(pool, 'w-least', (tx) => subjectsWithPendingAtLeast(tx, 'w-least', subjects, n));
    expect(await atLeast(['a', 'b', 'c', 'a'], 2)).toEqual(['a']);
    expect((await atLeast(['a', 'b', 'c'], 1)).sort()).toEqual(['a', 'b']);
    // Outside that workspace's transaction the function answers nothing.
    expect(await inWorkspace(pool, 'w-other', (tx) => subjectsWithPendingAtLeast(tx, 'w-least', ['a'], 1))).toEqual([]);
  });
});

describe('subjectsWithPending', () => {
  it('lists (workspace, subject) pairs with episodes waiting, of one workspace or all', async () => {
    await insertPending(pool, 'w-with-1', [{ subject: 'x', episode_id: id(1) }, { subject: 'x', episode_id: id(2) }]);
    await insertPending(pool, 'w-with-2', [{ subject: 'y', episode_id: id(1) }]);
    expect(await subjectsWithPending(pool, 'w-with-1')).toEqual([{ workspace_id: 'w-with-1', subject: 'x' }]);
    const all = await subjectsWithPending(pool);
    expect(all).toEqual(expect.arrayContaining([{ workspace_id: 'w-with-1', subject: 'x' }, { workspace_id: 'w-with-2', subject: 'y' }]));
    expect(all.filter((r) => r.workspace_id.startsWith('w-with-'))).toHaveLength(2);
  });
});

describe('totalPending', () => {
  it('counts every episode waiting in the database', async () => {
    const before = await totalPending(pool);
    await insertPending(pool, 'w-total', [{ subject: 's', episode_id: id(1) }, { subject: 's', episode_id: id(2) }]);
    expect(await totalPending(pool)).toBe(before + 2);
  });
});
