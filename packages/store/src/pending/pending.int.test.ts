import { describe, expect, it } from 'vitest';
import { inWorkspace, logEpisodes, markPending, useStoreDatabase } from '@canon/testing';
import type { Pool, Sql } from '../db.js';
import { deletePending } from './delete-pending.js';
import { insertPendingOfSubject } from './insert-pending-of-subject.js';
import { addToBacklog } from './add-to-backlog.js';
import { recountBacklogs } from './recount-backlogs.js';
import { subjectsWithPending } from './subjects-with-pending.js';
import { compileStart, compileStartOf, compileStartStatement } from './compile-start.js';
import { upsertSubject } from '../subjects/upsert-subject.js';
import { putPolicySetRow } from '../policies/put-policy-set-row.js';
import { enterScope } from '../session/enter-scope.js';
import { totalPending } from './total-pending.js';

// The backlog of episodes waiting for a compile of their subject.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** The pending episodes a compile of the subject would take. */
const pendingOf = async (workspace: string, subject: string, limit: number) => (await compileStart(pool, workspace, subject, limit)).pending;
/**
 * canon_pending_batches_at_least (migration 0037): no longer asked by this version, kept for a server
 * of the version before, still running beside an upgraded one during a rolling upgrade.
 */
async function subjectsWithPendingAtLeast(sql: Sql, workspaceId: string, subjects: string[], n: number): Promise<string[]> {
  const { rows } = await sql.query<{ s: string }>('SELECT s FROM canon_pending_batches_at_least($1, $2::text[], $3) AS s', [workspaceId, [...new Set(subjects)], n]);
  return rows.map((r) => r.s);
}
/** Each subject's row in pending_backlog, read as the owner this test connects as. */
async function backlogOf(workspace: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ subject: string; episodes: number }>('SELECT subject, episodes::int AS episodes FROM pending_backlog WHERE workspace_id = $1 ORDER BY 1', [workspace]);
  return Object.fromEntries(rows.map((r) => [r.subject, r.episodes]));
}

describe('the pending rows a compile takes', () => {
  it('takes the oldest first, up to the limit, of one subject only', async () => {
    await markPending(pool, 'w-take', [{ subject: 's', episode_id: id(9) }]);
    // created_at is kept to the millisecond: the second insert must come a whole one later.
    await new Promise((r) => setTimeout(r, 5));
    await markPending(pool, 'w-take', [
      { subject: 's', episode_id: id(3) },
      { subject: 't', episode_id: id(1) },
    ]);
    expect(await pendingOf('w-take', 's', 1)).toEqual([id(9)]);
    expect(await pendingOf('w-take', 's', 5)).toEqual([id(9), id(3)]);
    expect(await pendingOf('w-take', 'none', 5)).toEqual([]);
  });
});

describe('compileStart', () => {
  it('reads the policies, the subject\'s stamp and its oldest pending episodes in one statement', async () => {
    expect(await compileStart(pool, 'w-start', 's', 5)).toEqual({ policy_set: null, subject: null, pending: [], personal: new Map() });
    await markPending(pool, 'w-start', [{ subject: 's', episode_id: id(7) }]);
    await new Promise((r) => setTimeout(r, 5));
    await markPending(pool, 'w-start', [
      { subject: 's', episode_id: id(2) },
      { subject: 't', episode_id: id(4) },
    ]);
    await putPolicySetRow(pool, 'w-start', { policies: {} });
    await upsertSubject(pool, { workspace_id: 'w-start', subject: 's', state_hash: 'h1', compiler_version: 'v1', policy_fingerprint: 'f1', memories: 0, open_conflicts: 0, personal_sums: { ann: 'a1' } });
    // A row from before migration 0042: its sums are not known yet.
    await upsertSubject(pool, { workspace_id: 'w-start', subject: 'u', state_hash: 'h2', compiler_version: 'v2', policy_fingerprint: 'f2', memories: 0, open_conflicts: 0, personal_sums: null });
    expect(await compileStart(pool, 'w-start', 's', 1)).toEqual({
      policy_set: { policies: {} },
      subject: { state_hash: 'h1', compiler_version: 'v1', policy_fingerprint: 'f1' },
      pending: [id(7)],
      personal: new Map([['ann', 'a1']]),
    });
    expect((await compileStart(pool, 'w-start', 'u', 1)).personal).toBeNull();
    expect((await compileStart(pool, 'w-start', 's', 5)).pending).toEqual([id(7), id(2)]);
    // Another workspace's rows are not this one's.
    expect(await compileStart(pool, 'w-other', 's', 5)).toEqual({ policy_set: null, subject: null, pending: [], personal: new Map() });
    // The statement of literals reads the same.
    const literal = async (workspace: string, subject: string, limit: number) => compileStartOf((await pool.query(compileStartStatement(workspace, subject, limit))).rows);
    for (const [w, s, n] of [['w-start', 's', 1], ['w-start', 's', 5], ['w-start', 'u', 5], ['w-other', 's', 5]] as const) expect(await literal(w, s, n)).toEqual(await compileStart(pool, w, s, n));
    expect(() => compileStartStatement('w-start', 's', -1)).toThrow(RangeError);
  });

  it('spells any subject in its statement of literals as the value it is', async () => {
    const odd = "o'brien\\'; DROP TABLE pending; --";
    await markPending(pool, 'w-start-odd', [{ subject: odd, episode_id: id(3) }]);
    expect(compileStartOf((await pool.query(compileStartStatement('w-start-odd', odd, 5))).rows).pending).toEqual([id(3)]);
  });
});

describe('deletePending', () => {
  it('removes the named episodes of a subject and leaves the rest waiting', async () => {
    await markPending(pool, 'w-delete', [
      { subject: 's', episode_id: id(1) },
      { subject: 's', episode_id: id(2) },
      { subject: 't', episode_id: id(1) },
    ]);
    await deletePending(pool, 'w-delete', 's', [id(1)]);
    expect(await pendingOf('w-delete', 's', 10)).toEqual([id(2)]);
    expect(await pendingOf('w-delete', 't', 10)).toEqual([id(1)]);
  });
});

describe('canon_pending_batches_at_least, kept for a server of the version before', () => {
  it('names the subjects with at least n episodes waiting, inside the workspace\'s transaction', async () => {
    await markPending(pool, 'w-least', [
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

  it('counts from the index whatever the backlog of other subjects: a small subject beside a large one reads only its own entries', async () => {
    // One subject with 20,000 waiting, another with one: planned once for any subject, the count
    // had estimated each at the table's average and scanned the whole table for the small one.
    // 200 batches of 100, each counted on one of its rows.
    await pool.query(
      `INSERT INTO pending (workspace_id, subject, episode_id, scope, owner, batch_count)
       SELECT 'w-skew', 'big', gen_random_uuid(), 'workspace', NULL, CASE WHEN g % 100 = 0 THEN 100 END FROM generate_series(1, 20000) g`,
    );
    await markPending(pool, 'w-skew', [{ subject: 'small', episode_id: id(9) }]);
    await pool.query('ANALYZE pending');
    // The function's own plan, as auto_explain logs a nested statement (loaded and set as the
    // superuser this test connects as, then the workspace's transaction as a request opens it).
    const client = await pool.connect();
    const notices: string[] = [];
    client.on('notice', (n) => notices.push(n.message ?? ''));
    try {
      await client.query("LOAD 'auto_explain'");
      await client.query("SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = 'notice'; SET client_min_messages = 'notice'");
      await client.query('BEGIN');
      await enterScope(client, { workspace_id: 'w-skew', user: null, all_users: true });
      expect(await subjectsWithPendingAtLeast(client, 'w-skew', ['small'], 500)).toEqual([]);
      expect(await subjectsWithPendingAtLeast(client, 'w-skew', ['big', 'small'], 20_000)).toEqual(['big']);
      await client.query('ROLLBACK');
    } finally {
      client.release(true);
    }
    const plan = notices.join('\n');
    expect(plan).toContain('pending_batches_idx');
    expect(plan).not.toMatch(/Seq Scan on pending/);
  });
});

// pending_backlog: each subject's count of waiting episodes, what CANON_COMPILE_AFTER is checked against.
describe('addToBacklog', () => {
  it('adds what each batch marked and names the subjects it brings to the threshold, inside the workspace\'s transaction only', async () => {
    const add = (added: Array<[string, number]>, threshold: number, ws = 'w-backlog') => inWorkspace(pool, ws, (tx) => addToBacklog(tx, 'w-backlog', new Map(added), threshold));
    expect(await add([['b', 2], ['a', 3]], 5)).toEqual([]);
    expect(await add([['a', 2], ['b', 0], ['c', 1]], 5)).toEqual(['a']);
    // Past the threshold a subject is named again: each batch may pull its compile forward.
    expect(await add([['c', 1], ['a', 1]], 2)).toEqual(['a', 'c']);
    expect(await backlogOf('w-backlog')).toEqual({ a: 6, b: 2, c: 2 });
    // Asked from another workspace's transaction it adds nothing and names nothing.
    expect(await add([['a', 100]], 1, 'w-elsewhere')).toEqual([]);
    expect(await backlogOf('w-backlog')).toEqual({ a: 6, b: 2, c: 2 });
    // A member's transaction (its user's rows only) adds every user's count all the same.
    expect(await inWorkspace(pool, 'w-backlog', (tx) => addToBacklog(tx, 'w-backlog', new Map([['b', 3]]), 5), 'ann')).toEqual(['b']);
    // A subject named twice in one call is added to once, with both counts.
    const { rows } = await inWorkspace(pool, 'w-backlog', (tx) => tx.query(`SELECT s FROM canon_backlog_add('w-backlog', ARRAY['d', 'd'], ARRAY[1, 2], 3) AS s`));
    expect(rows).toEqual([{ s: 'd' }]);
    expect(await backlogOf('w-backlog')).toEqual({ a: 6, b: 5, c: 2, d: 3 });
  });

  it('is not readable or writable by the application role but through its two functions', async () => {
    await inWorkspace(pool, 'w-backlog-rls', (tx) => addToBacklog(tx, 'w-backlog-rls', new Map([['s', 1]]), 10));
    const { rows } = await inWorkspace(pool, 'w-backlog-rls', (tx) => tx.query('SELECT * FROM pending_backlog'));
    expect(rows).toEqual([]);
    await expect(inWorkspace(pool, 'w-backlog-rls', (tx) => tx.query(`INSERT INTO pending_backlog VALUES ('w-backlog-rls', 'x', 1)`))).rejects.toThrow(/row-level security/);
    expect(await backlogOf('w-backlog-rls')).toEqual({ s: 1 });
  });
});

describe('recountBacklogs', () => {
  it('is set from the pending rows, every user\'s, by a recount; a subject with none waiting keeps no row', async () => {
    await markPending(pool, 'w-recount', [
      { subject: 's', episode_id: id(1) },
      { subject: 's', episode_id: id(2), scope: 'personal', owner: 'ann' },
      { subject: 't', episode_id: id(3) },
    ]);
    await inWorkspace(pool, 'w-recount', (tx) => addToBacklog(tx, 'w-recount', new Map([['s', 40], ['t', 1], ['u', 9]]), 1_000));
    // Recounted from bob's transaction, which does not see ann's row: still counted.
    await inWorkspace(pool, 'w-recount', (tx) => recountBacklogs(tx, 'w-recount', ['u', 's', 's']), 'bob');
    expect(await backlogOf('w-recount')).toEqual({ s: 2, t: 1 });
    await deletePending(pool, 'w-recount', 't', [id(3)]);
    await inWorkspace(pool, 'w-recount', (tx) => recountBacklogs(tx, 'w-other', ['t']));
    expect(await backlogOf('w-recount')).toEqual({ s: 2, t: 1 });
    await inWorkspace(pool, 'w-recount', (tx) => recountBacklogs(tx, 'w-recount', ['t']));
    expect(await backlogOf('w-recount')).toEqual({ s: 2 });
  });

  it('leaves a row an ingest under way holds rather than wait for it, and sets the others', async () => {
    await markPending(pool, 'w-recount-held', [{ subject: 's', episode_id: id(1) }, { subject: 't', episode_id: id(2) }]);
    await inWorkspace(pool, 'w-recount-held', (tx) => addToBacklog(tx, 'w-recount-held', new Map([['s', 5], ['t', 5]]), 1_000));
    const ingest = await pool.connect();
    try {
      await ingest.query('BEGIN');
      await enterScope(ingest, { workspace_id: 'w-recount-held', user: null, all_users: true });
      await addToBacklog(ingest, 'w-recount-held', new Map([['s', 1]]), 1_000);
      await inWorkspace(pool, 'w-recount-held', (tx) => recountBacklogs(tx, 'w-recount-held', ['s', 't']));
      await ingest.query('COMMIT');
    } finally {
      ingest.release();
    }
    expect(await backlogOf('w-recount-held')).toEqual({ s: 6, t: 1 });
    await inWorkspace(pool, 'w-recount-held', (tx) => recountBacklogs(tx, 'w-recount-held', ['s']));
    expect(await backlogOf('w-recount-held')).toEqual({ s: 1, t: 1 });
  });
});

describe('subjectsWithPending', () => {
  it('lists (workspace, subject) pairs with episodes waiting, of one workspace or all', async () => {
    await markPending(pool, 'w-with-1', [{ subject: 'x', episode_id: id(1) }, { subject: 'x', episode_id: id(2) }]);
    await markPending(pool, 'w-with-2', [{ subject: 'y', episode_id: id(1) }]);
    expect(await subjectsWithPending(pool, 'w-with-1')).toEqual([{ workspace_id: 'w-with-1', subject: 'x' }]);
    const all = await subjectsWithPending(pool);
    expect(all).toEqual(expect.arrayContaining([{ workspace_id: 'w-with-1', subject: 'x' }, { workspace_id: 'w-with-2', subject: 'y' }]));
    expect(all.filter((r) => r.workspace_id.startsWith('w-with-'))).toHaveLength(2);
  });
});

describe('totalPending', () => {
  it('counts every episode waiting in the database', async () => {
    const before = await totalPending(pool);
    await markPending(pool, 'w-total', [{ subject: 's', episode_id: id(1) }, { subject: 's', episode_id: id(2) }]);
    expect(await totalPending(pool)).toBe(before + 2);
  });
});

describe('insertPendingOfSubject', () => {
  it('marks every episode of the subject, each with its own scope and owner', async () => {
    const [shared] = await logEpisodes(pool, 'w-of-subject', [{ idempotency_key: 'a', subject: 's' }, { idempotency_key: 'b', subject: 't' }]);
    const [mine] = await logEpisodes(pool, 'w-of-subject', [{ idempotency_key: 'c', subject: 's', scope: 'personal' }], { role: 'member', user: 'ann' });
    await insertPendingOfSubject(pool, 'w-of-subject', 's');
    const { rows } = await pool.query(`SELECT episode_id, scope, owner FROM pending WHERE workspace_id = 'w-of-subject' ORDER BY scope DESC`);
    expect(rows).toEqual([
      { episode_id: shared!.id, scope: 'workspace', owner: null },
      { episode_id: mine!.id, scope: 'personal', owner: 'ann' },
    ]);
  });

  it('carries how many it marked on one row, counting only the episodes that were not waiting already', async () => {
    await logEpisodes(pool, 'w-of-subject-count', [{ idempotency_key: 'a', subject: 's' }, { idempotency_key: 'b', subject: 's' }, { idempotency_key: 'c', subject: 't' }]);
    await insertPendingOfSubject(pool, 'w-of-subject-count', 's');
    await logEpisodes(pool, 'w-of-subject-count', [{ idempotency_key: 'd', subject: 's' }]);
    await insertPendingOfSubject(pool, 'w-of-subject-count', 's');
    const { rows } = await pool.query(`SELECT batch_count FROM pending WHERE workspace_id = 'w-of-subject-count' AND batch_count IS NOT NULL ORDER BY 1`);
    expect(rows).toEqual([{ batch_count: 1 }, { batch_count: 2 }]);
    const due = (n: number) => inWorkspace(pool, 'w-of-subject-count', (tx) => subjectsWithPendingAtLeast(tx, 'w-of-subject-count', ['s', 't'], n));
    expect(await due(3)).toEqual(['s']);
    expect(await due(4)).toEqual([]);
  });
});

describe('pending under the personal-scope policy', () => {
  it('shows and takes a personal row only from its owner, and refuses one written for another user', async () => {
    await markPending(pool, 'w-personal', [
      { subject: 's', episode_id: id(1) },
      { subject: 's', episode_id: id(2), scope: 'personal', owner: 'ann' },
    ]);
    const seen = (user: string) =>
      inWorkspace(pool, 'w-personal', async (tx) => (await tx.query(`SELECT episode_id FROM pending ORDER BY episode_id`)).rows.map((r) => r.episode_id), user);
    expect(await seen('ann')).toEqual([id(1), id(2)]);
    expect(await seen('bob')).toEqual([id(1)]);
    await expect(
      inWorkspace(pool, 'w-personal', (tx) => markPending(tx, 'w-personal', [{ subject: 's', episode_id: id(3), scope: 'personal', owner: 'ann' }]), 'bob'),
    ).rejects.toThrow(/row-level security/);
  });
});
