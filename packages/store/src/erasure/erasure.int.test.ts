import { describe, expect, it } from 'vitest';
import { inWorkspace, logEpisodes, markPending, useStoreDatabase } from '@canon/testing';
import { inTransaction, type Pool } from '../db.js';
import { insertCompileRun } from '../compile-runs/insert-compile-run.js';
import { episodesOfSubject } from '../episodes/episodes-of-subject.js';
import { getJobProgress } from '../jobs/get-job-progress.js';
import { saveJobProgress } from '../jobs/save-job-progress.js';
import { compileStart } from '../pending/compile-start.js';
import { deleteCompileRunsOfSubject } from './delete-compile-runs-of-subject.js';
import { deleteEpisodes } from './delete-episodes.js';
import { deleteJobsNaming } from './delete-jobs-naming.js';
import { erasableEpisodes } from './erasable-episodes.js';
import { erasedKeysAmong } from './erased-keys-among.js';
import { erasedKeysPage } from './erased-keys-page.js';
import { insertErasedKeys } from './insert-erased-keys.js';
import { insertErasure } from './insert-erasure.js';
import { insertErasureRebuiltSubjects } from './insert-erasure-rebuilt-subjects.js';
import { rebuiltByErasure } from './rebuilt-by-erasure.js';
import { insertTombstones } from './insert-tombstones.js';

// Erasure (design §8): the one audited exception to the append-only log, and its tombstones.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('erasableEpisodes', () => {
  it('finds a subject\'s episodes, or every one a user wrote or owns, in log order', async () => {
    await logEpisodes(pool, 'w-erasable', [{ idempotency_key: 'by-owner', subject: 's' }]);
    await logEpisodes(pool, 'w-erasable', [
      { idempotency_key: 'ann-shared', subject: 't' },
      { idempotency_key: 'ann-personal', subject: 's', scope: 'personal' },
    ], { role: 'member', user: 'ann' });
    const ofS = await erasableEpisodes(pool, 'w-erasable', { subject: 's' });
    expect(ofS.map((e) => e.idempotency_key)).toEqual(['by-owner', 'ann-personal']);
    expect(Object.keys(ofS[0]!).sort()).toEqual(['actor_role', 'id', 'idempotency_key', 'owner', 'scope', 'source', 'subject']);
    expect(ofS.map((e) => e.actor_role)).toEqual(['owner', 'member']);
    expect(ofS.map((e) => [e.scope, e.owner])).toEqual([['workspace', null], ['personal', 'ann']]);
    expect((await erasableEpisodes(pool, 'w-erasable', { user: 'ann' })).map((e) => e.idempotency_key)).toEqual(['ann-personal', 'ann-shared']);
    expect(await erasableEpisodes(pool, 'w-erasable', { user: 'nobody' })).toEqual([]);
  });
});

describe('deleteEpisodes', () => {
  it('deletes episodes and their pending rows inside the erasure\'s transaction, and only there', async () => {
    const [a, b] = await logEpisodes(pool, 'w-delete', [
      { idempotency_key: 'a', subject: 's' },
      { idempotency_key: 'b', subject: 's' },
    ]);
    await markPending(pool, 'w-delete', [{ subject: 's', episode_id: a!.id }, { subject: 's', episode_id: b!.id }]);
    const deleted = await inTransaction(pool, async (tx) => {
      const n = await deleteEpisodes(tx, 'w-delete', [a!.id]);
      const setting = (await tx.query<{ v: string }>(`SELECT current_setting('canon.erasure', true) AS v`)).rows[0]!.v;
      return { n, setting };
    });
    expect(deleted).toEqual({ n: 1, setting: 'off' });
    expect(await episodesOfSubject(pool, 'w-delete', 's')).toEqual([b]);
    expect((await compileStart(pool, 'w-delete', 's', 10)).pending).toEqual([b!.id]);
    // Without it, the log refuses a DELETE.
    await expect(pool.query('DELETE FROM episodes WHERE workspace_id = $1', ['w-delete'])).rejects.toThrow();
    expect(await inTransaction(pool, (tx) => deleteEpisodes(tx, 'w-delete', []))).toBe(0);
  });
});

describe('deleteCompileRunsOfSubject', () => {
  it('removes the compile audit of one subject', async () => {
    const run = (id: string, subject: string) => ({ workspace_id: 'w-runs', id, subject, kind: 'compile' as const, job_id: null, started_at: '2026-01-01T00:00:00.000Z', duration_ms: 1, result: {} });
    await insertCompileRun(pool, run(uuid(1), 's'));
    await insertCompileRun(pool, run(uuid(2), 't'));
    await deleteCompileRunsOfSubject(pool, 'w-runs', 's');
    const { rows } = await pool.query<{ subject: string }>('SELECT subject FROM compile_runs WHERE workspace_id = $1', ['w-runs']);
    expect(rows).toEqual([{ subject: 't' }]);
  });
});

describe('deleteJobsNaming', () => {
  it('deletes the queue\'s jobs naming an erased subject as a whole, with their progress, and restores the role', async () => {
    const job = async (data: unknown, more: { output?: unknown; singleton_key?: string } = {}) =>
      (
        await pool.query<{ id: string }>(`INSERT INTO pgboss.job (name, data, output, singleton_key) VALUES ('compile', $1, $2, $3) RETURNING id::text AS id`, [
          JSON.stringify(data),
          more.output === undefined ? null : JSON.stringify(more.output),
          more.singleton_key ?? null,
        ])
      ).rows[0]!.id;
    const named = await job({ workspace_id: 'w-jobs', subject: 'a' });
    const inOutput = await job({ workspace_id: 'w-jobs', all: true }, { output: { failed: [{ subject: 'a' }] } });
    const inKey = await job({ workspace_id: 'w-jobs' }, { singleton_key: JSON.stringify(['w-jobs', 'a']) });
    const longer = await job({ workspace_id: 'w-jobs', subject: 'ab' });
    const elsewhere = await job({ workspace_id: 'w-other', subject: 'a' });
    await saveJobProgress(pool, 'w-jobs', named, 1, 2);
    const out = await inWorkspace(pool, 'w-jobs', async (tx) => {
      const ids = await deleteJobsNaming(tx, 'w-jobs', ['a']);
      return { ids, role: (await tx.query<{ r: string }>('SELECT current_user AS r')).rows[0]!.r };
    });
    expect(out.ids.sort()).toEqual([named, inOutput, inKey].sort());
    expect(out.role).toBe('canon_app');
    const { rows } = await pool.query<{ id: string }>('SELECT id::text AS id FROM pgboss.job WHERE id = ANY($1::uuid[])', [[named, inOutput, inKey, longer, elsewhere]]);
    expect(rows.map((r) => r.id).sort()).toEqual([longer, elsewhere].sort());
    expect(await getJobProgress(pool, 'w-jobs', named)).toBeNull();
    expect(await inWorkspace(pool, 'w-jobs', (tx) => deleteJobsNaming(tx, 'w-jobs', []))).toEqual([]);
  });
});

describe('erasedKeysAmong', () => {
  it('says which key hashes of a batch were erased in this workspace', async () => {
    await insertErasedKeys(pool, 'w-among', uuid(1), ['h1', 'h2']);
    expect(await erasedKeysAmong(pool, 'w-among', ['h2', 'h3'])).toEqual(new Set(['h2']));
    expect(await erasedKeysAmong(pool, 'w-other', ['h2'])).toEqual(new Set());
    expect(await erasedKeysAmong(pool, 'w-among', [])).toEqual(new Set());
  });
});

describe('insertErasedKeys', () => {
  it('records tombstones, keeping the first erasure of a key', async () => {
    await insertErasedKeys(pool, 'w-insert-keys', uuid(1), ['h1']);
    await insertErasedKeys(pool, 'w-insert-keys', uuid(2), ['h1', 'h2']);
    expect(await erasedKeysPage(pool, 'w-insert-keys', null, 10)).toEqual([
      { key_hash: 'h1', erasure_id: uuid(1) },
      { key_hash: 'h2', erasure_id: uuid(2) },
    ]);
  });
});

describe('insertErasureRebuiltSubjects', () => {
  it('records each subject hash once, in its workspace', async () => {
    await insertErasureRebuiltSubjects(pool, 'w-rebuilt', uuid(1), ['s1', 's2']);
    await insertErasureRebuiltSubjects(pool, 'w-rebuilt', uuid(2), ['s1']);
    await insertErasureRebuiltSubjects(pool, 'w-rebuilt', uuid(3), []);
    const { rows } = await pool.query(`SELECT subject_hash, erasure_id FROM erasure_rebuilt_subjects WHERE workspace_id = 'w-rebuilt' ORDER BY subject_hash`);
    expect(rows).toEqual([
      { subject_hash: 's1', erasure_id: uuid(1) },
      { subject_hash: 's2', erasure_id: uuid(1) },
    ]);
  });
});

describe('rebuiltByErasure', () => {
  it('answers whether an erasure touched the subject, in that workspace only', async () => {
    await insertErasureRebuiltSubjects(pool, 'w-rebuilt-ask', uuid(1), ['s1']);
    expect(await rebuiltByErasure(pool, 'w-rebuilt-ask', 's1')).toBe(true);
    expect(await rebuiltByErasure(pool, 'w-rebuilt-ask', 's2')).toBe(false);
    expect(await rebuiltByErasure(pool, 'w-other', 's1')).toBe(false);
  });
});

describe('insertErasure', () => {
  it('writes the audit row and answers when the database stamped it', async () => {
    const row = { workspace_id: 'w-audit', id: uuid(7), target_kind: 'subject' as const, target_hash: 'th', actor_key_id: 'k', actor_role: 'owner', episodes: 2, memories: 1 };
    const { erased_at } = await insertErasure(pool, row);
    const { rows } = await pool.query('SELECT target_kind, target_hash, episodes, memories, erased_at FROM erasures WHERE workspace_id = $1', ['w-audit']);
    expect(rows).toEqual([{ target_kind: 'subject', target_hash: 'th', episodes: 2, memories: 1, erased_at }]);
    await expect(insertErasure(pool, row)).rejects.toMatchObject({ code: '23505' });
  });
});

describe('erasedKeysPage', () => {
  it('pages a workspace\'s tombstones in key-hash order, and ends', async () => {
    await insertErasedKeys(pool, 'w-page', uuid(1), ['c', 'a', 'b']);
    expect((await erasedKeysPage(pool, 'w-page', null, 2)).map((r) => r.key_hash)).toEqual(['a', 'b']);
    expect((await erasedKeysPage(pool, 'w-page', 'b', 2)).map((r) => r.key_hash)).toEqual(['c']);
    expect(await erasedKeysPage(pool, 'w-page', 'c', 2)).toEqual([]);
  });
});

describe('insertTombstones', () => {
  it('brings in an export\'s tombstones with their erasure ids, counting only the new ones', async () => {
    await insertErasedKeys(pool, 'w-import', uuid(1), ['h1']);
    expect(await insertTombstones(pool, 'w-import', [{ key_hash: 'h1', erasure_id: uuid(9) }, { key_hash: 'h2', erasure_id: uuid(9) }])).toBe(1);
    expect(await erasedKeysPage(pool, 'w-import', null, 10)).toEqual([
      { key_hash: 'h1', erasure_id: uuid(1) },
      { key_hash: 'h2', erasure_id: uuid(9) },
    ]);
    expect(await insertTombstones(pool, 'w-import', [])).toBe(0);
  });
});
