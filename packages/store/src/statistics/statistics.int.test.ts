import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { analyzeCompiledTables } from './analyze-compiled-tables.js';

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const counts = async () =>
  new Map(
    (await pool.query<{ relname: string; n: number }>(`SELECT relname, analyze_count::int AS n FROM pg_stat_user_tables WHERE schemaname = 'public'`)).rows.map(
      (r) => [r.relname, r.n] as const,
    ),
  );

describe('analyzeCompiledTables', () => {
  it('analyzes the tables a compile reads by key and fills, and no other', async () => {
    const before = await counts();
    await analyzeCompiledTables(pool);
    const after = await counts();
    const analyzed = [...after].filter(([t, n]) => n > (before.get(t) ?? 0)).map(([t]) => t).sort();
    expect(analyzed).toEqual(['changes', 'claim_decisions', 'claims', 'episode_markers', 'episodes', 'evidence', 'memories', 'memory_blocks', 'memory_value_terms', 'memory_values', 'pending']);
  });
});
