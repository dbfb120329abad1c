import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { createPool, migrateDatabase, MIGRATIONS_FOLDER, schema } from '@canon/store';
import { loadConfig } from '@canon/runtime';
import { createEmptyDatabase, createTestRuntime, type TestDatabase } from '@canon/testing';

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

describe('migrations', () => {
  it('turn an empty database into exactly the schema the code declares', async () => {
    const db = await createEmptyDatabase();
    dbs.push(db);
    const pool = createPool(db.url);
    try {
      expect((await migrateDatabase(pool)).applied).toBeGreaterThan(0);
      expect((await migrateDatabase(pool)).applied).toBe(0);
      expect(await liveSchema(pool)).toEqual(declaredSchema());
      const { rows } = await pool.query(`SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'`);
      expect(rows).toHaveLength(1);
      const triggers = await pool.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'episodes'::regclass AND NOT tgisinternal ORDER BY 1`);
      expect(triggers.rows.map((r) => r.tgname)).toEqual(['episodes_append_only', 'episodes_no_truncate']);
      // 0037 added a sum of batch counts, and kept the count it replaces for servers of the version
      // before during a rolling upgrade.
      const functions = await pool.query(`SELECT proname, pg_get_userbyid(proowner) AS owner FROM pg_proc WHERE proname LIKE 'canon_pending%' ORDER BY 1`);
      expect(functions.rows).toEqual([
        { proname: 'canon_pending_at_least', owner: 'canon_system' },
        { proname: 'canon_pending_batches_at_least', owner: 'canon_system' },
      ]);
    } finally {
      await pool.end();
    }
  });

  it('keep the claim decisions of a database created before they had that name (0020)', async () => {
    const timeline = { memory_id: 'm1', values: [], dispositions: [{ claim: { source: 'api', idempotency_key: 'k1', index: 0 }, kind: 'supports', target: null, reason: 'first value' }] };
    await migratedByOwner(
      '0020_claim_decisions',
      async (admin) => {
        await admin.query(
          `INSERT INTO memories (workspace_id, id, subject, key, scope, predicate, qualifiers, revision, etag, digest, status, timeline)
           VALUES ('w1', 'm1', 's', 'k', 'workspace', 'p', '{}', 1, 'e', 'd', 'in_force', $1)`,
          [JSON.stringify(timeline)],
        );
        await admin.query(`INSERT INTO dispositions (workspace_id, memory_id, source, idempotency_key, claim_index, kind, target, reason) VALUES ('w1', 'm1', 'api', 'k1', 0, 'supports', NULL, 'first value')`);
      },
      async ({ admin }) => {
        const { rows: gone } = await admin.query(`SELECT to_regclass('dispositions') AS t`);
        expect(gone[0].t).toBeNull();
        const { rows: kept } = await admin.query('SELECT memory_id, idempotency_key, kind, reason FROM claim_decisions');
        expect(kept).toEqual([{ memory_id: 'm1', idempotency_key: 'k1', kind: 'supports', reason: 'first value' }]);
        const { rows: stored } = await admin.query(`SELECT timeline FROM memories WHERE id = 'm1'`);
        expect(stored[0].timeline).toEqual({ memory_id: 'm1', values: [], decisions: timeline.dispositions });
        // What 0005 and 0011 declared on the table holds under its new name.
        const { rows: policies } = await admin.query(`SELECT policyname, permissive, roles::text[] AS roles FROM pg_policies WHERE tablename = 'claim_decisions' ORDER BY 1`);
        expect(policies).toEqual([
          { policyname: 'personal_scope', permissive: 'RESTRICTIVE', roles: ['canon_app'] },
          { policyname: 'system_all', permissive: 'PERMISSIVE', roles: ['canon_system'] },
          { policyname: 'workspace_isolation', permissive: 'PERMISSIVE', roles: ['canon_app'] },
        ]);
        const { rows: tables } = await admin.query(
          `SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
                  has_table_privilege('canon_app', c.oid, 'SELECT, INSERT, UPDATE, DELETE') AS app,
                  has_table_privilege('canon_system', c.oid, 'SELECT, INSERT, UPDATE, DELETE') AS system,
                  (SELECT conname FROM pg_constraint WHERE conrelid = c.oid AND contype = 'p') AS pk
           FROM pg_class c WHERE c.oid IN ('claim_decisions'::regclass, 'memories'::regclass) ORDER BY 1`,
        );
        expect(tables).toMatchObject([
          { relname: 'claim_decisions', relrowsecurity: true, relforcerowsecurity: true, app: true, system: true },
          { relname: 'memories', relrowsecurity: true, relforcerowsecurity: true, app: true, system: true },
        ]);
        expect(tables[0].pk).toMatch(/^claim_decisions_workspace_id_memory_id_/);
      },
    );
  });

  it('give every waiting episode its scope and owner, drop the foreign key to workspaces and keep workspaces undeletable (0023)', async () => {
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    await migratedByOwner(
      '0023_ingest_without_lookups',
      async (admin) => {
        await admin.query(`INSERT INTO workspaces (id) VALUES ('w1')`);
        const episode = (id: string, key: string, scope: string, who: string | null) =>
          admin.query(
            `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body, occurred_at, occurred_at_defaulted,
               lineage, snapshot, actor_role, actor_user, content_hash)
             VALUES ('w1', $1, 'api', $2, 's', $3, $4, 'claim', '{}', now(), false, 'l', false, 'member', $4, 'h')`,
            [id, key, scope, who],
          );
        await episode(id(1), 'a', 'workspace', null);
        await episode(id(2), 'b', 'personal', 'ann');
        // The third names no episode (one erased before its pending row went): it marks nothing.
        for (const n of [1, 2, 3]) await admin.query(`INSERT INTO pending (workspace_id, subject, episode_id) VALUES ('w1', 's', $1)`, [id(n)]);
      },
      async ({ admin }) => {
        const { rows } = await admin.query('SELECT episode_id, scope, owner FROM pending ORDER BY episode_id');
        expect(rows).toEqual([
          { episode_id: id(1), scope: 'workspace', owner: null },
          { episode_id: id(2), scope: 'personal', owner: 'ann' },
        ]);
        const { rows: tables } = await admin.query(
          `SELECT c.relname, c.relforcerowsecurity FROM pg_class c WHERE c.oid IN ('episodes'::regclass, 'pending'::regclass) ORDER BY 1`,
        );
        expect(tables).toEqual([
          { relname: 'episodes', relforcerowsecurity: true },
          { relname: 'pending', relforcerowsecurity: true },
        ]);
        const { rows: fks } = await admin.query(`SELECT conname FROM pg_constraint WHERE conrelid = 'episodes'::regclass AND contype = 'f'`);
        expect(fks).toEqual([]);
        const { rows: grants } = await admin.query(
          `SELECT r AS role, has_table_privilege(r, 'workspaces', 'DELETE') AS del, has_table_privilege(r, 'workspaces', 'TRUNCATE') AS trunc,
                  has_column_privilege(r, 'workspaces', 'id', 'UPDATE') AS id, has_column_privilege(r, 'workspaces', 'time_zone', 'UPDATE') AS tz
           FROM unnest(ARRAY['canon_app', 'canon_system']) AS r ORDER BY 1`,
        );
        expect(grants).toEqual([
          { role: 'canon_app', del: false, trunc: false, id: false, tz: true },
          { role: 'canon_system', del: false, trunc: false, id: false, tz: true },
        ]);
      },
    );
  });

  it('compress the large columns with lz4 where the server has it, and migrate all the same where it has not (0025)', async () => {
    const db = await createEmptyDatabase();
    dbs.push(db);
    const pool = createPool(db.url);
    try {
      await migrateDatabase(pool);
      // Whether this server was built with lz4, asked of the server itself, not of the migration.
      const client = await pool.connect();
      let lz4 = true;
      try {
        await client.query('BEGIN');
        await client.query('CREATE TEMP TABLE lz4_probe (t text COMPRESSION lz4)');
      } catch (err) {
        expect((err as { code?: string }).code).toBe('0A000');
        lz4 = false;
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
      const { rows } = await pool.query(
        `SELECT attrelid::regclass::text || '.' || attname AS col, attcompression AS c, format_type(atttypid, atttypmod) AS type FROM pg_attribute
         WHERE (attrelid, attname) IN (('memories'::regclass, 'timeline'), ('memories'::regclass, 'summary'), ('memories'::regclass, 'partner_sides'), ('episodes'::regclass, 'body'), ('claims'::regclass, 'claim'))
         ORDER BY 1`,
      );
      const method = lz4 ? 'l' : '';
      // Migrations 0028 and 0036 made claims, timelines, summaries and partner sides json, which
      // resets a column's compression: it is set again.
      expect(rows).toEqual([
        { col: 'claims.claim', c: method, type: 'json' },
        { col: 'episodes.body', c: method, type: 'jsonb' },
        { col: 'memories.partner_sides', c: method, type: 'json' },
        { col: 'memories.summary', c: method, type: 'json' },
        { col: 'memories.timeline', c: method, type: 'json' },
      ]);
      // A value past the compression threshold reads back whole either way.
      const big = { text: 'x'.repeat(50_000) };
      await pool.query(`INSERT INTO workspaces (id) VALUES ('w-lz4')`);
      await pool.query(
        `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, kind, body, occurred_at, occurred_at_defaulted, lineage, snapshot, actor_role, content_hash)
         VALUES ('w-lz4', gen_random_uuid(), 'api', 'k', 's', 'workspace', 'note', $1, now(), false, 'l', false, 'member', 'h')`,
        [big],
      );
      const back = await pool.query(`SELECT body, pg_column_compression(body) AS m FROM episodes WHERE workspace_id = 'w-lz4'`);
      expect(back.rows[0].body).toEqual(big);
      expect(back.rows[0].m).toBe(lz4 ? 'lz4' : 'pglz');
    } finally {
      await pool.end();
    }
  });

  it('give every memory with a summary its side, as recall read it from the summary (0026)', async () => {
    const memory = (id: string, summary: unknown, side: unknown) => ({ id, summary: summary === null ? null : JSON.stringify(summary), side: side === null ? null : JSON.stringify(side) });
    const summary = {
      v: 1,
      from: '2026-01-02T00:00:00.000Z',
      memory: {
        id: 'm1',
        key: 'k1',
        status: 'conflicted',
        predicate: 'deploy_day',
        qualifiers: { env: 'prod' },
        current: [],
        conflict: [
          { value: 'Tuesday', standing: 50, sources: [{ source: 'api', idempotency_key: 'a', source_ref: null, text: '' }] },
          { value: { day: 'Thursday' }, standing: 50, sources: [] },
        ],
        scheduled: [],
        needs_verification: true,
      },
    };
    const rows = [memory('m1', summary, null), memory('m2', null, null), memory('m3', summary, { v: 1, from: null, memory: { kept: true } })];
    await migratedByOwner(
      '0026_side_backfill',
      async (admin) => {
        for (const r of rows)
          await admin.query(
            `INSERT INTO memories (workspace_id, id, subject, key, scope, predicate, qualifiers, revision, etag, digest, status, timeline, summary, side)
             VALUES ('w1', $1, 's', $1, 'workspace', 'deploy_day', '{}', 1, 'e', 'd', 'conflicted', '{}', $2, $3)`,
            [r.id, r.summary, r.side],
          );
      },
      async ({ admin }) => {
        const { rows: sides } = await admin.query('SELECT id, side FROM memories ORDER BY id');
        expect(sides).toEqual([
          {
            id: 'm1',
            side: {
              v: 1,
              from: '2026-01-02T00:00:00.000Z',
              memory: { status: 'conflicted', predicate: 'deploy_day', qualifiers: { env: 'prod' }, current: [], conflict: [{ value: 'Tuesday' }, { value: { day: 'Thursday' } }] },
            },
          },
          { id: 'm2', side: null },
          { id: 'm3', side: { v: 1, from: null, memory: { kept: true } } },
        ]);
        const { rows: forced } = await admin.query(`SELECT relforcerowsecurity FROM pg_class WHERE oid = 'memories'::regclass`);
        expect(forced).toEqual([{ relforcerowsecurity: true }]);
      },
    );
  });

  it('give every memory with candidates what it keeps of them: each one\'s scope, owner and side (0033)', async () => {
    const side = (value: string) => ({ v: 1, from: '2026-01-02T00:00:00.000Z', memory: { status: 'current', predicate: 'p', qualifiers: {}, current: [{ value }], conflict: [] } });
    const ref = (id: string) => ({ memory_id: id, score: 0.9, reason: 'same slots' });
    // a and b name each other; c names a and a row that is gone; d names nothing; e of another workspace.
    const rows: Array<[string, string, string, string | null, unknown, unknown[]]> = [
      ['w1', 'a', 'workspace', null, side('Tuesday'), [ref('b')]],
      ['w1', 'b', 'workspace', null, side('Thursday'), [ref('a'), ref('c')]],
      ['w1', 'c', 'personal', 'ann', null, [ref('b'), ref('gone')]],
      ['w1', 'd', 'workspace', null, side('Friday'), []],
      ['w2', 'a', 'workspace', null, side('Monday'), [ref('b')]],
    ];
    await migratedByOwner(
      '0033_partner_sides',
      async (admin) => {
        for (const [ws, id, scope, owner, s, candidates] of rows)
          await admin.query(
            `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, side, candidates)
             VALUES ($1, $2, 's', $2, $3, $4, 'p', '{}', 1, 'e', 'd', 'in_force', '{}', $5, $6)`,
            [ws, id, scope, owner, JSON.stringify(s), JSON.stringify(candidates)],
          );
      },
      async ({ admin }) => {
        const { rows: kept } = await admin.query('SELECT workspace_id, id, partner_sides FROM memories ORDER BY workspace_id, id');
        expect(kept).toEqual([
          { workspace_id: 'w1', id: 'a', partner_sides: { b: { scope: 'workspace', owner: null, side: side('Thursday') } } },
          { workspace_id: 'w1', id: 'b', partner_sides: { a: { scope: 'workspace', owner: null, side: side('Tuesday') }, c: { scope: 'personal', owner: 'ann', side: null } } },
          { workspace_id: 'w1', id: 'c', partner_sides: { b: { scope: 'workspace', owner: null, side: side('Thursday') } } },
          { workspace_id: 'w1', id: 'd', partner_sides: null },
          { workspace_id: 'w2', id: 'a', partner_sides: null },
        ]);
        const { rows: forced } = await admin.query(`SELECT relforcerowsecurity FROM pg_class WHERE oid = 'memories'::regclass`);
        expect(forced).toEqual([{ relforcerowsecurity: true }]);
      },
    );
  });

  it('keep the sides of a memory\'s first 20 candidates only, the ones it shows (0034)', async () => {
    const side = (value: string) => ({ v: 1, from: '2026-01-02T00:00:00.000Z', memory: { status: 'current', predicate: 'p', qualifiers: {}, current: [{ value }], conflict: [] } });
    const ids = Array.from({ length: 25 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    // The hub names all 24 others (best first, as a compile keeps them) and still keeps every side;
    // each other names the hub alone and keeps its side.
    const hubSides = Object.fromEntries(ids.slice(1).map((id) => [id, { scope: 'workspace', owner: null, side: side(id) }]));
    await migratedByOwner(
      '0034_candidates_shown',
      async (admin) => {
        for (const id of ids) {
          const hub = id === ids[0];
          const candidates = hub ? ids.slice(1).map((o, i) => ({ memory_id: o, score: 1 - i / 100, reason: 'r' })) : [{ memory_id: ids[0], score: 0.9, reason: 'r' }];
          const partners = hub ? hubSides : { [ids[0]!]: { scope: 'workspace', owner: null, side: side(ids[0]!) } };
          await admin.query(
            `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, side, candidates, partner_sides)
             VALUES ('w1', $1, 's', $1, 'workspace', null, 'p', '{}', 1, 'e', 'd', 'in_force', '{}', $2, $3, $4)`,
            [id, JSON.stringify(side(id)), JSON.stringify(candidates), JSON.stringify(partners)],
          );
        }
      },
      async ({ admin }) => {
        const { rows } = await admin.query<{ id: string; partner_sides: Record<string, unknown> }>('SELECT id, partner_sides FROM memories ORDER BY id');
        const hub = rows.find((r) => r.id === ids[0])!;
        expect(Object.keys(hub.partner_sides).sort()).toEqual(ids.slice(1, 21));
        expect(hub.partner_sides[ids[1]!]).toEqual({ scope: 'workspace', owner: null, side: side(ids[1]!) });
        for (const r of rows.filter((x) => x.id !== ids[0])) expect(r.partner_sides).toEqual({ [ids[0]!]: { scope: 'workspace', owner: null, side: side(ids[0]!) } });
        const { rows: forced } = await admin.query(`SELECT relforcerowsecurity FROM pg_class WHERE oid = 'memories'::regclass`);
        expect(forced).toEqual([{ relforcerowsecurity: true }]);
      },
    );
  });

  it('keep a memory\'s 20 best candidates only, and the refs that carry a proposal (0035)', async () => {
    const ids = Array.from({ length: 26 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    const proposal = { same: true, source: 'resolver', idempotency_key: 'p1', reason: 'r' };
    // The hub names 24 others, best first, then a proposal-only ref; each other names the hub alone.
    const hub = [...ids.slice(1, 25).map((o, i) => ({ memory_id: o, score: 1 - i / 100, reason: 'r' })), { memory_id: ids[25]!, score: 0, reason: 'a link was proposed', proposed: proposal }];
    await migratedByOwner(
      '0035_candidates_kept',
      async (admin) => {
        for (const id of ids) {
          const candidates = id === ids[0] ? hub : [{ memory_id: ids[0], score: 0.9, reason: 'r' }];
          await admin.query(
            `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, candidates)
             VALUES ('w1', $1, 's', $1, 'workspace', null, 'p', '{}', 1, 'e', 'd', 'in_force', '{}', $2)`,
            [id, JSON.stringify(candidates)],
          );
        }
      },
      async ({ admin }) => {
        const { rows } = await admin.query<{ id: string; candidates: Array<{ memory_id: string }> }>('SELECT id, candidates FROM memories ORDER BY id');
        expect(rows.find((r) => r.id === ids[0])!.candidates).toEqual([...hub.slice(0, 20), hub[24]]);
        for (const r of rows.filter((x) => x.id !== ids[0])) expect(r.candidates).toEqual([{ memory_id: ids[0], score: 0.9, reason: 'r' }]);
        const { rows: forced } = await admin.query(`SELECT relforcerowsecurity FROM pg_class WHERE oid = 'memories'::regclass`);
        expect(forced).toEqual([{ relforcerowsecurity: true }]);
      },
    );
  });

  it('keep every claim and timeline, member for member, when they become json (0028)', async () => {
    const claim = { workspace_id: 'w1', episode_id: '00000000-0000-4000-8000-000000000001', index: 0, key: 'k1', value: { b: 1, a: [2, -0, 'é'] }, text: 'Deploys run on Tuesday.' };
    const timeline = { memory_id: 'm1', key: 'k1', values: [{ value: 'Tuesday', evidence: [{ source: 'api', index: 0 }] }], decisions: [], linked: ['k2'] };
    await migratedByOwner(
      '0028_claims_and_timelines_as_json',
      async (admin) => {
        await admin.query(`INSERT INTO claims (workspace_id, episode_id, idx, subject, memory_id, lineage, claim) VALUES ('w1', $1, 0, 's', 'm1', 'l', $2)`, [claim.episode_id, JSON.stringify(claim)]);
        await admin.query(
          `INSERT INTO memories (workspace_id, id, subject, key, scope, predicate, qualifiers, revision, etag, digest, status, timeline)
           VALUES ('w1', 'm1', 's', 'k1', 'workspace', 'deploy_day', '{}', 1, 'e', 'd', 'in_force', $1)`,
          [JSON.stringify(timeline)],
        );
      },
      async ({ admin }) => {
        const { rows: claims } = await admin.query('SELECT claim, claim->>$1 AS key FROM claims', ['key']);
        expect(claims).toEqual([{ claim: { ...claim, value: { b: 1, a: [2, 0, 'é'] } }, key: 'k1' }]);
        const { rows: memories } = await admin.query(`SELECT timeline, (timeline->'linked')::jsonb ? 'k2' AS linked FROM memories`);
        expect(memories).toEqual([{ timeline, linked: true }]);
      },
    );
  });

  it('keep every summary and partner side, member for member, when they become json (0036)', async () => {
    const summary = { v: 1, from: '2026-01-01T00:00:00.000Z', memory: { id: 'm1', predicate: 'The deploy runs on {weekday}', current: [{ value: 'Tuesday', evidence_count: 1 }], qualifiers: { env: 'é' } } };
    const sides = { m2: { scope: 'workspace', owner: null, side: { v: 1, from: '2026-01-02T00:00:00.000Z', memory: { status: 'current', current: [{ value: 'Thursday' }] } } } };
    await migratedByOwner(
      '0036_recall_json_columns',
      async (admin) => {
        await admin.query(
          `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, summary, partner_sides)
           VALUES ('w1', 'm1', 's', 'k1', 'workspace', null, 'p', '{}', 1, 'e', 'd', 'in_force', '{}', $1, $2), ('w1', 'm3', 's', 'k3', 'workspace', null, 'p', '{}', 1, 'e', 'd', 'in_force', '{}', null, null)`,
          [JSON.stringify(summary), JSON.stringify(sides)],
        );
      },
      async ({ admin }) => {
        const { rows } = await admin.query('SELECT id, summary, partner_sides, pg_typeof(summary)::text AS s, pg_typeof(partner_sides)::text AS p FROM memories ORDER BY id');
        expect(rows).toEqual([
          { id: 'm1', summary, partner_sides: sides, s: 'json', p: 'json' },
          { id: 'm3', summary: null, partner_sides: null, s: 'json', p: 'json' },
        ]);
        const { rows: forced } = await admin.query(`SELECT relforcerowsecurity FROM pg_class WHERE oid = 'memories'::regclass`);
        expect(forced).toEqual([{ relforcerowsecurity: true }]);
      },
    );
  });

  it('give each subject waiting from before batch counts one row carrying its count, and count backlogs from those rows (0037)', async () => {
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    await migratedByOwner(
      '0037_pending_batch_counts',
      async (admin) => {
        const mark = (ws: string, subject: string, n: number) =>
          admin.query(`INSERT INTO pending (workspace_id, subject, episode_id, scope) VALUES ($1, $2, $3, 'workspace')`, [ws, subject, id(n)]);
        for (const n of [1, 2, 3]) await mark('w1', 'busy', n);
        await mark('w1', 'quiet', 4);
        await mark('w2', 'busy', 5);
      },
      async ({ admin }) => {
        const { rows } = await admin.query(
          `SELECT workspace_id, subject, count(*)::int AS rows, sum(batch_count)::int AS total, count(batch_count)::int AS carriers FROM pending GROUP BY 1, 2 ORDER BY 1, 2`,
        );
        expect(rows).toEqual([
          { workspace_id: 'w1', subject: 'busy', rows: 3, total: 3, carriers: 1 },
          { workspace_id: 'w1', subject: 'quiet', rows: 1, total: 1, carriers: 1 },
          { workspace_id: 'w2', subject: 'busy', rows: 1, total: 1, carriers: 1 },
        ]);
        // Migrated by a database owner that may not act as canon_system: the new function is its own
        // (test/pending-threshold.test.ts runs it as canon_system's); the old one stays canon_system's.
        const { rows: functions } = await admin.query(`SELECT proname, pg_get_userbyid(proowner) AS owner FROM pg_proc WHERE proname LIKE 'canon_pending%' ORDER BY 1`);
        expect(functions).toEqual([
          { proname: 'canon_pending_at_least', owner: 'canon_system' },
          { proname: 'canon_pending_batches_at_least', owner: expect.stringMatching(/^canon_owner_/) },
        ]);
        // A server of the version before, still running during a rolling upgrade, keeps its count.
        const client = await admin.connect();
        try {
          await client.query('BEGIN');
          await client.query(`SELECT set_config('role', 'canon_app', true), set_config('canon.workspace_id', 'w1', true)`);
          const { rows: due } = await client.query(`SELECT s FROM canon_pending_at_least('w1', ARRAY['busy', 'quiet'], 3) AS s`);
          expect(due).toEqual([{ s: 'busy' }]);
          await client.query('ROLLBACK');
        } finally {
          client.release();
        }
        const { rows: forced } = await admin.query(`SELECT relforcerowsecurity FROM pg_class WHERE oid = 'pending'::regclass`);
        expect(forced).toEqual([{ relforcerowsecurity: true }]);
      },
    );
  });

  it('count each subject\'s waiting episodes into one backlog row, and leave ingest working where the functions cannot be canon_system\'s (0043)', async () => {
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    await migratedByOwner(
      '0043_pending_backlog',
      async (admin) => {
        const mark = (ws: string, subject: string, n: number, owner: string | null = null) =>
          admin.query(`INSERT INTO pending (workspace_id, subject, episode_id, scope, owner) VALUES ($1, $2, $3, $4, $5)`, [ws, subject, id(n), owner ? 'personal' : 'workspace', owner]);
        for (const n of [1, 2, 3]) await mark('w1', 'busy', n);
        await mark('w1', 'busy', 4, 'ann');
        await mark('w1', 'quiet', 5);
        await mark('w2', 'busy', 6);
      },
      async ({ admin }) => {
        const { rows } = await admin.query(`SELECT workspace_id, subject, episodes::int AS episodes FROM pending_backlog ORDER BY 1, 2`);
        expect(rows).toEqual([
          { workspace_id: 'w1', subject: 'busy', episodes: 4 },
          { workspace_id: 'w1', subject: 'quiet', episodes: 1 },
          { workspace_id: 'w2', subject: 'busy', episodes: 1 },
        ]);
        const { rows: forced } = await admin.query(`SELECT relname, relforcerowsecurity FROM pg_class WHERE oid IN ('pending'::regclass, 'pending_backlog'::regclass) ORDER BY 1`);
        expect(forced).toEqual([
          { relname: 'pending', relforcerowsecurity: true },
          { relname: 'pending_backlog', relforcerowsecurity: true },
        ]);
        // Migrated by a database owner that may not act as canon_system, the functions are its own,
        // and the forced policies refuse it the table: an ingest's call adds nothing and fails
        // nothing (its compile then runs after its debounce), a compile's recount changes nothing.
        const { rows: functions } = await admin.query(`SELECT proname, pg_get_userbyid(proowner) AS owner FROM pg_proc WHERE proname LIKE 'canon_backlog%' ORDER BY 1`);
        expect(functions).toEqual([
          { proname: 'canon_backlog_add', owner: expect.stringMatching(/^canon_owner_/) },
          { proname: 'canon_backlog_recount', owner: expect.stringMatching(/^canon_owner_/) },
        ]);
        const client = await admin.connect();
        try {
          await client.query('BEGIN');
          await client.query(`SELECT set_config('role', 'canon_app', true), set_config('canon.workspace_id', 'w1', true)`);
          const { rows: due } = await client.query(`SELECT s FROM canon_backlog_add('w1', ARRAY['busy', 'new'], ARRAY[5, 1], 1) AS s`);
          expect(due).toEqual([]);
          await client.query(`SELECT canon_backlog_recount('w1', ARRAY['busy'])`);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
        const { rows: after } = await admin.query(`SELECT subject, episodes::int AS episodes FROM pending_backlog WHERE workspace_id = 'w1' ORDER BY 1`);
        expect(after).toEqual([
          { subject: 'busy', episodes: 4 },
          { subject: 'quiet', episodes: 1 },
        ]);
      },
    );
  });

  it('run once when two runtimes start together on an empty database', async () => {
    const db = await createEmptyDatabase();
    dbs.push(db);
    const config = loadConfig({}, { databaseUrl: db.url });
    const [a, b] = await Promise.all([createTestRuntime(config), createTestRuntime(config)]);
    try {
      const { rows } = await a.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      const { rows: files } = await a.pool.query<{ hash: string }>('SELECT DISTINCT hash FROM drizzle.__drizzle_migrations');
      expect(rows[0]!.n).toBe(files.length);
      expect(rows[0]!.n).toBeGreaterThanOrEqual(2);
      // pg-boss installed its own schema too.
      const boss = await a.pool.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = 'pgboss'`);
      expect(boss.rows).toHaveLength(1);
      // Both bootstrap on a fresh database: exactly one owner key is minted.
      const [ka, kb] = await Promise.all([a.bootstrap(), b.bootstrap()]);
      expect([ka, kb].filter(Boolean)).toHaveLength(1);
      expect((await a.listKeys()).map((k) => [k.workspace_id, k.role])).toEqual([['default', 'owner']]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

/** The migrations folder as it was before `tag`: its SQL files and a journal that ends there. */
/** Copies the migrations before `tag` into `dir`; answers how many were left out (`tag` and those after it). */
/**
 * A database of every migration before `tag`, seeded by `seed` as that schema stood, then handed
 * to an owner that is no superuser — row-level security (FORCE) applies to such an owner, not even
 * a member of canon_system, as an installation's may be — who applies the rest: the result is
 * exactly the declared schema, and `check` looks at what the migration did to the data.
 */
async function migratedByOwner(tag: string, seed: (admin: pg.Pool) => Promise<unknown>, check: (c: { admin: pg.Pool }) => Promise<void>): Promise<void> {
  const db = await createEmptyDatabase();
  dbs.push(db);
  const before = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-migrations-'));
  const admin = createPool(db.url);
  const owner = `canon_owner_${randomBytes(4).toString('hex')}`;
  const url = new URL(db.url);
  url.username = owner;
  // The embedded server asks for a password (trust holds only on some machines' PostgreSQL).
  const password = randomBytes(12).toString('hex');
  url.password = password;
  const pool = createPool(url.toString());
  try {
    const pending = migrationsBefore(tag, before);
    const client = await admin.connect();
    try {
      await migrate(drizzle(client), { migrationsFolder: before });
    } finally {
      client.release();
    }
    await seed(admin);
    await admin.query(`CREATE ROLE ${owner} LOGIN PASSWORD '${password}'`);
    await admin.query(`ALTER DATABASE ${db.name} OWNER TO ${owner}`);
    await admin.query(`ALTER SCHEMA drizzle OWNER TO ${owner}`);
    const { rows: owned } = await admin.query<{ t: string }>(`SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname IN ('public', 'drizzle')`);
    for (const { t } of owned) await admin.query(`ALTER TABLE ${t} OWNER TO ${owner}`);

    expect((await migrateDatabase(pool)).applied).toBe(pending);
    expect(await liveSchema(pool)).toEqual(declaredSchema());
    await check({ admin });
  } finally {
    await pool.end();
    await admin.end();
    fs.rmSync(before, { recursive: true, force: true });
    await db.drop();
    dbs.splice(dbs.indexOf(db), 1);
    const roles = new URL(db.url);
    roles.pathname = '/postgres';
    const other = createPool(roles.toString());
    await other.query(`DROP ROLE IF EXISTS ${owner}`).finally(() => other.end());
  }
}

function migrationsBefore(tag: string, dir: string): number {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  const end = journal.entries.findIndex((e) => e.tag === tag);
  expect(end).toBeGreaterThan(0);
  const entries = journal.entries.slice(0, end);
  fs.mkdirSync(path.join(dir, 'meta'));
  fs.writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const e of entries) fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return journal.entries.length - end;
}

const tables = (): PgTable[] =>
  (Object.values(schema) as unknown[]).filter((v): v is PgTable => typeof v === 'object' && v !== null && Symbol.for('drizzle:IsDrizzleTable') in v);

/** Tables, columns (type, nullability), indexes and checks as the code declares them. */
function declaredSchema() {
  const out: Record<string, unknown> = {};
  for (const t of tables()) {
    const c = getTableConfig(t);
    out[c.name] = {
      columns: Object.fromEntries(c.columns.map((col) => [col.name, { type: col.getSQLType().replace(/"/g, ''), notNull: col.notNull }])),
      indexes: c.indexes.map((i) => i.config.name).sort(),
      checks: c.checks.map((k) => k.name).sort(),
    };
  }
  return out;
}

/** The same facts read back from the migrated database's catalog. */
async function liveSchema(pool: pg.Pool) {
  const out: Record<string, { columns: Record<string, unknown>; indexes: string[]; checks: string[] }> = {};
  const cols = await pool.query<{ table_name: string; column_name: string; type: string; not_null: boolean }>(
    `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, a.attnum`,
  );
  for (const r of cols.rows) {
    out[r.table_name] ??= { columns: {}, indexes: [], checks: [] };
    out[r.table_name]!.columns[r.column_name] = { type: r.type.replace(' with time zone', ' with time zone'), notNull: r.not_null };
  }
  const idx = await pool.query<{ table_name: string; name: string }>(
    `SELECT tablename AS table_name, indexname AS name FROM pg_indexes WHERE schemaname = 'public'
     AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u')) ORDER BY 2`,
  );
  for (const r of idx.rows) out[r.table_name]?.indexes.push(r.name);
  const chk = await pool.query<{ table_name: string; name: string }>(
    `SELECT c.relname AS table_name, k.conname AS name FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND k.contype = 'c' ORDER BY 2`,
  );
  for (const r of chk.rows) out[r.table_name]?.checks.push(r.name);
  return out;
}
