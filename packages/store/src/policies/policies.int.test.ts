import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { getPolicySetRow } from './get-policy-set-row.js';
import { putPolicySetRow } from './put-policy-set-row.js';

// A workspace's predicate policies, stored whole.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

describe('getPolicySetRow', () => {
  it('is null for a workspace that never set its policies, and the stored set otherwise', async () => {
    expect(await getPolicySetRow(pool, 'w-get')).toBeNull();
    await putPolicySetRow(pool, 'w-get', { predicates: { region: { cardinality: 'many' } } });
    expect(await getPolicySetRow(pool, 'w-get')).toEqual({ predicates: { region: { cardinality: 'many' } } });
    expect(await getPolicySetRow(pool, 'w-other')).toBeNull();
  });
});

describe('putPolicySetRow', () => {
  it('replaces a stored set and stamps when', async () => {
    await putPolicySetRow(pool, 'w-put', { v: 1 });
    const first = (await pool.query<{ updated_at: string }>('SELECT updated_at FROM policies WHERE workspace_id = $1', ['w-put'])).rows[0]!.updated_at;
    await putPolicySetRow(pool, 'w-put', { v: 2 });
    expect(await getPolicySetRow(pool, 'w-put')).toEqual({ v: 2 });
    const second = (await pool.query<{ updated_at: string }>('SELECT updated_at FROM policies WHERE workspace_id = $1', ['w-put'])).rows[0]!.updated_at;
    expect(second >= first).toBe(true);
  });
});
