import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { ensureWorkspace } from './ensure-workspace.js';
import { workspaceIds } from './workspace-ids.js';

// The tenants.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

describe('ensureWorkspace', () => {
  it('creates a workspace once, and says whether it did', async () => {
    expect(await ensureWorkspace(pool, 'w-ensure')).toEqual({ created: true });
    expect(await ensureWorkspace(pool, 'w-ensure')).toEqual({ created: false });
  });
});

describe('workspaceIds', () => {
  it('lists every workspace in id order', async () => {
    await ensureWorkspace(pool, 'w-ids-b');
    await ensureWorkspace(pool, 'w-ids-a');
    const ids = await workspaceIds(pool);
    expect(ids.filter((id) => id.startsWith('w-ids-'))).toEqual(['w-ids-a', 'w-ids-b']);
    expect(ids).toEqual([...ids].sort());
  });
});
