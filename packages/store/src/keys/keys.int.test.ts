import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { ensureWorkspace } from '../workspaces/ensure-workspace.js';
import { countApiKeys } from './count-api-keys.js';
import { findActiveApiKeyById } from './find-active-api-key-by-id.js';
import { findActiveApiKey } from './find-active-api-key.js';
import { insertApiKey } from './insert-api-key.js';
import { listApiKeys } from './list-api-keys.js';
import { revokeApiKey } from './revoke-api-key.js';
import { revokeKeysOfUser } from './revoke-keys-of-user.js';

// API keys: stored by hash, handed out without it.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

let n = 0;
async function key(workspaceId: string, over: { role?: 'owner' | 'reader'; sources?: string[] } = {}) {
  n += 1;
  await ensureWorkspace(pool, workspaceId);
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const record = await insertApiKey(pool, { id, workspace_id: workspaceId, role: over.role ?? 'owner', user_id: null, key_hash: `hash-${n}`, prefix: `ck_${n}`, label: null, ...(over.sources ? { sources: over.sources } : {}) });
  return { id, hash: `hash-${n}`, record };
}

describe('insertApiKey', () => {
  it('stores a key and answers with its record, never its hash', async () => {
    const { id, record } = await key('w-insert', { role: 'reader', sources: ['github'] });
    expect(record).toEqual({ id, workspace_id: 'w-insert', role: 'reader', user_id: null, prefix: expect.any(String), label: null, sources: ['github'], created_at: expect.any(String), revoked_at: null });
    expect(record).not.toHaveProperty('key_hash');
    await expect(insertApiKey(pool, { id: `${id.slice(0, -1)}f`, workspace_id: 'w-insert', role: 'owner', user_id: null, key_hash: 'hash-1', prefix: 'x', label: null })).rejects.toMatchObject({ code: '23505' });
  });
});

describe('findActiveApiKey', () => {
  it('finds an active key by its hash, and not once it is revoked', async () => {
    const { id, hash, record } = await key('w-find');
    expect(await findActiveApiKey(pool, hash)).toEqual(record);
    expect(await findActiveApiKey(pool, 'no-such-hash')).toBeNull();
    // The hash is written into the statement as one escaped literal, whatever it holds.
    expect(await findActiveApiKey(pool, `${hash}' OR '1'='1`)).toBeNull();
    expect(await findActiveApiKey(pool, `\\' OR true; --`)).toBeNull();
    await revokeApiKey(pool, id);
    expect(await findActiveApiKey(pool, hash)).toBeNull();
  });
});

describe('findActiveApiKeyById', () => {
  it('finds an active key of a workspace by id, not another workspace\'s nor a malformed id', async () => {
    const { id, record } = await key('w-find-id');
    expect(await findActiveApiKeyById(pool, 'w-find-id', id)).toEqual(record);
    expect(await findActiveApiKeyById(pool, 'w-other', id)).toBeNull();
    expect(await findActiveApiKeyById(pool, 'w-find-id', 'not-a-uuid')).toBeNull();
  });
});

describe('listApiKeys', () => {
  it('lists the keys of a workspace, or of all, revoked ones included', async () => {
    const a = await key('w-list-1');
    const b = await key('w-list-1');
    const c = await key('w-list-2');
    await revokeApiKey(pool, b.id);
    expect((await listApiKeys(pool, 'w-list-1')).map((k) => [k.id, k.revoked_at !== null])).toEqual([[a.id, false], [b.id, true]]);
    expect((await listApiKeys(pool)).map((k) => k.id)).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
  });
});

describe('revokeApiKey', () => {
  it('revokes once (a second revoke keeps the first time), and says when no key has that id', async () => {
    const { id } = await key('w-revoke');
    const first = await revokeApiKey(pool, id);
    if (!first.ok) throw new Error('revoked');
    expect(first.key.revoked_at).not.toBeNull();
    expect(await revokeApiKey(pool, id)).toEqual(first);
    expect(await revokeApiKey(pool, '00000000-0000-4000-8000-999999999999')).toEqual({ ok: false, reason: 'not_found' });
  });
});

describe('countApiKeys', () => {
  it('counts every key of every workspace', async () => {
    const before = await countApiKeys(pool);
    await key('w-count');
    await key('w-count-2');
    expect(await countApiKeys(pool)).toBe(before + 2);
  });
});

describe('revokeKeysOfUser', () => {
  it('revokes a user\'s keys of one workspace and takes the name off them, leaving every other key', async () => {
    await ensureWorkspace(pool, 'w-revoke-user');
    const mk = async (id: number, workspace_id: string, user_id: string | null) =>
      insertApiKey(pool, { id: `00000000-0000-4000-9000-${String(id).padStart(12, '0')}`, workspace_id, role: 'member', user_id, key_hash: `user-hash-${id}`, prefix: `ck_u${id}`, label: user_id && `${user_id}'s laptop` });
    await ensureWorkspace(pool, 'w-revoke-other');
    await mk(1, 'w-revoke-user', 'ann');
    await mk(2, 'w-revoke-user', 'ann');
    await mk(3, 'w-revoke-user', 'bob');
    await mk(4, 'w-revoke-other', 'ann');
    expect(await revokeKeysOfUser(pool, 'w-revoke-user', 'ann')).toBe(2);
    expect(await findActiveApiKey(pool, 'user-hash-1')).toBeNull();
    expect(await findActiveApiKey(pool, 'user-hash-2')).toBeNull();
    expect(await findActiveApiKey(pool, 'user-hash-3')).not.toBeNull();
    expect(await findActiveApiKey(pool, 'user-hash-4')).not.toBeNull();
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = 'w-revoke-user' AND user_id = 'ann'`);
    expect(rows[0]!.n).toBe(0);
    const labels = await pool.query<{ label: string | null }>(`SELECT label FROM api_keys WHERE workspace_id = 'w-revoke-user' ORDER BY id`);
    expect(labels.rows.map((r) => r.label)).toEqual([null, null, "bob's laptop"]);
    expect(await revokeKeysOfUser(pool, 'w-revoke-user', 'nobody')).toBe(0);
  });
});
