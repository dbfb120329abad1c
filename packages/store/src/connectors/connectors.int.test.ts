import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { deleteConnectorCursor } from './delete-connector-cursor.js';
import { deleteConnectorInstance } from './delete-connector-instance.js';
import { findConnectorInstance } from './find-connector-instance.js';
import { insertConnectorInstance } from './insert-connector-instance.js';
import { listConnectorCursors } from './list-connector-cursors.js';
import { listConnectorInstances } from './list-connector-instances.js';
import { loadConnectorCursor } from './load-connector-cursor.js';
import { saveConnectorCursor } from './save-connector-cursor.js';

// A connector's configured instances and the cursor each has read its source up to.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const instance = (workspace_id: string, id: string) => ({ workspace_id, id, connector: 'git', config: { path: '/repo', depth: 2 }, schedule: '0 * * * *' });

describe('loadConnectorCursor', () => {
  it('is null before the first batch, then the stored cursor (JSON null included)', async () => {
    const ref = { workspaceId: 'w-load', instanceId: 'i' };
    expect(await loadConnectorCursor(pool, ref)).toBeNull();
    await saveConnectorCursor(pool, { ...ref, expected: null, cursor: { sha: 'abc' } });
    expect(await loadConnectorCursor(pool, ref)).toEqual({ cursor: { sha: 'abc' }, updated_at: expect.any(String) });
    await saveConnectorCursor(pool, { ...ref, expected: { sha: 'abc' }, cursor: null });
    expect((await loadConnectorCursor(pool, ref))?.cursor).toBeNull();
  });
});

describe('saveConnectorCursor', () => {
  it('moves a cursor only from the one the run read, so an overlapping run cannot move it back', async () => {
    const ref = { workspaceId: 'w-save', instanceId: 'i' };
    expect(await saveConnectorCursor(pool, { ...ref, expected: null, cursor: { n: 1 } })).toEqual({ ok: true });
    // A second run that also read "no cursor" is refused.
    expect(await saveConnectorCursor(pool, { ...ref, expected: null, cursor: { n: 0 } })).toEqual({ ok: false, reason: 'stale' });
    expect(await saveConnectorCursor(pool, { ...ref, expected: { n: 5 }, cursor: { n: 6 } })).toEqual({ ok: false, reason: 'stale' });
    // jsonb equality: the same cursor however its members are ordered.
    expect(await saveConnectorCursor(pool, { ...ref, expected: { n: 1 }, cursor: { n: 2, at: 'x' } })).toEqual({ ok: true });
    expect(await saveConnectorCursor(pool, { ...ref, expected: { at: 'x', n: 2 }, cursor: { n: 3 } })).toEqual({ ok: true });
    expect((await loadConnectorCursor(pool, ref))?.cursor).toEqual({ n: 3 });
    expect(await saveConnectorCursor(pool, { workspaceId: 'w-save', instanceId: 'never', expected: { n: 1 }, cursor: { n: 2 } })).toEqual({ ok: false, reason: 'stale' });
  });
});

describe('deleteConnectorCursor', () => {
  it('forgets a cursor, and says whether there was one', async () => {
    const ref = { workspaceId: 'w-forget', instanceId: 'i' };
    await saveConnectorCursor(pool, { ...ref, expected: null, cursor: 1 });
    expect(await deleteConnectorCursor(pool, ref)).toEqual({ deleted: true });
    expect(await loadConnectorCursor(pool, ref)).toBeNull();
    expect(await deleteConnectorCursor(pool, ref)).toEqual({ deleted: false });
  });
});

describe('insertConnectorInstance', () => {
  it('creates an instance once; the same id again is `exists`', async () => {
    const created = await insertConnectorInstance(pool, instance('w-insert', 'repo'));
    expect(created).toEqual({ ok: true, instance: { ...instance('w-insert', 'repo'), created_at: expect.any(String) } });
    expect(await insertConnectorInstance(pool, { ...instance('w-insert', 'repo'), connector: 'github' })).toEqual({ ok: false, reason: 'exists' });
    expect((await insertConnectorInstance(pool, instance('w-insert-2', 'repo'))).ok).toBe(true);
  });
});

describe('findConnectorInstance', () => {
  it('finds an instance of a workspace by id, or null', async () => {
    const created = await insertConnectorInstance(pool, instance('w-find', 'repo'));
    expect(await findConnectorInstance(pool, 'w-find', 'repo')).toEqual(created.ok && created.instance);
    expect(await findConnectorInstance(pool, 'w-find', 'other')).toBeNull();
    expect(await findConnectorInstance(pool, 'w-elsewhere', 'repo')).toBeNull();
  });
});

describe('listConnectorInstances', () => {
  it('lists the instances of a workspace in id order, or of every workspace', async () => {
    await insertConnectorInstance(pool, instance('w-list', 'b'));
    await insertConnectorInstance(pool, instance('w-list', 'a'));
    await insertConnectorInstance(pool, instance('w-list-2', 'c'));
    expect((await listConnectorInstances(pool, 'w-list')).map((i) => i.id)).toEqual(['a', 'b']);
    const all = (await listConnectorInstances(pool)).map((i) => `${i.workspace_id}/${i.id}`);
    expect(all).toEqual(expect.arrayContaining(['w-list/a', 'w-list/b', 'w-list-2/c']));
  });
});

describe('deleteConnectorInstance', () => {
  it('deletes an instance and answers with it; a second delete is `not_found`', async () => {
    const created = await insertConnectorInstance(pool, instance('w-delete', 'repo'));
    expect(await deleteConnectorInstance(pool, 'w-delete', 'repo')).toEqual(created);
    expect(await findConnectorInstance(pool, 'w-delete', 'repo')).toBeNull();
    expect(await deleteConnectorInstance(pool, 'w-delete', 'repo')).toEqual({ ok: false, reason: 'not_found' });
  });
});

describe('listConnectorCursors', () => {
  it('lists the cursors of one workspace by instance id', async () => {
    await saveConnectorCursor(pool, { workspaceId: 'w-cursors', instanceId: 'workspace:b', expected: null, cursor: { files: {} } });
    await saveConnectorCursor(pool, { workspaceId: 'w-cursors', instanceId: 'git:a', expected: null, cursor: { head: 'x' } });
    await saveConnectorCursor(pool, { workspaceId: 'w-cursors-other', instanceId: 'git:a', expected: null, cursor: { head: 'y' } });
    expect(await listConnectorCursors(pool, 'w-cursors')).toEqual([
      { instance_id: 'git:a', cursor: { head: 'x' } },
      { instance_id: 'workspace:b', cursor: { files: {} } },
    ]);
    expect(await listConnectorCursors(pool, 'w-none')).toEqual([]);
  });
});
