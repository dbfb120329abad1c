import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY_SET, extract, fold, foldWithCheckpoint, policyFor, timelineHashes } from '@canon/core';
import { claimBody, compiledFrom, logEpisodes, memoryWrite, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { insertClaims } from '../claims/insert-claims.js';
import { claimCountsOfMemories } from '../claims/claim-counts-of-memories.js';
import { insertMarkers } from '../compile-runs/insert-markers.js';
import { writeProjections } from '../projections/write-projections.js';
import { projectionRowsOfSubject } from '../projections/projection-rows-of-subject.js';
import { getSubject } from '../subjects/get-subject.js';
import { upsertSubject } from '../subjects/upsert-subject.js';
import { conflictedMemories } from './conflicted-memories.js';
import { deleteDerivedOfSubject } from './delete-derived-of-subject.js';
import { deleteMemories } from './delete-memories.js';
import { insertMemories } from './insert-memories.js';
import { memoriesByIds } from './memories-by-ids.js';
import { memoriesOfSubject } from './memories-of-subject.js';
import { personalDigestsOfSubject } from './personal-digests-of-subject.js';
import { memoriesPage } from './memories-page.js';
import { memoryHeadsOfSubject } from './memory-heads-of-subject.js';
import { candidateSidesStatement, recallPageStatement } from './recall-page.js';
import { readInScope } from '../session/read-in-scope.js';
import type { MemoryRecallRow } from './rows.js';
import { summariesOfSubject } from './summaries-of-subject.js';
import { updateCheckpoints } from './update-checkpoints.js';
import { updateMemoriesIfRevision } from './update-memories-if-revision.js';
import { writeBlocks } from './write-blocks.js';

// The memories table: one row per fact key, its timeline, and what recall reads instead of it.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

/**
 * A subject's memories as a compile writes them: two plain keys, a key two members dispute, and
 * ann's personal key; and one memory of another subject.
 */
async function seeded(workspaceId: string) {
  const episodes = [
    ...(await logEpisodes(pool, workspaceId, [
      { idempotency_key: 'day', subject: 's', body: claimBody('deploy_day', 'Tuesday') },
      { idempotency_key: 'owner', subject: 's', body: claimBody('owner', 'ann') },
      { idempotency_key: 'other', subject: 't', body: claimBody('owner', 'bob') },
    ])),
    ...(await logEpisodes(pool, workspaceId, [
      { idempotency_key: 'eu', subject: 's', body: claimBody('region', 'eu') },
      { idempotency_key: 'mine', subject: 's', scope: 'personal', body: claimBody('editor', 'vim') },
    ], { role: 'member', user: 'ann' })),
    ...(await logEpisodes(pool, workspaceId, [{ idempotency_key: 'us', subject: 's', body: claimBody('region', 'us') }], { role: 'member', user: 'bob' })),
  ];
  const { claims, memories } = compiledFrom(episodes);
  await insertClaims(pool, claims);
  await insertMemories(pool, workspaceId, memories);
  const by = (predicate: string) => memories.find((m) => m.timeline.fact_key.predicate === predicate && m.subject === 's')!;
  return { episodes, claims, memories, day: by('deploy_day'), owner: by('owner'), region: by('region'), editor: by('editor') };
}

describe('insertMemories', () => {
  it('inserts a compile\'s new memories in one statement, as a read gives them back', async () => {
    const { memories, day } = await seeded('w-insert');
    const read = await memoriesByIds(pool, 'w-insert', memories.map((m) => m.timeline.memory_id));
    expect(read.size).toBe(memories.length);
    expect(read.get(day.timeline.memory_id)).toEqual({
      id: day.timeline.memory_id,
      subject: 's',
      key: day.timeline.key,
      revision: day.timeline.revision,
      etag: day.etag,
      digest: day.digest,
      status: 'in_force',
      timeline: JSON.parse(JSON.stringify(day.timeline)),
      candidates: [],
    });
  });
});

describe('memoriesByIds', () => {
  it('maps the ids it finds to their rows, in this workspace only', async () => {
    const { day, owner } = await seeded('w-by-ids');
    const out = await memoriesByIds(pool, 'w-by-ids', [day.timeline.memory_id, 'no-such-memory']);
    expect([...out.keys()]).toEqual([day.timeline.memory_id]);
    expect((await memoriesByIds(pool, 'w-nowhere', [owner.timeline.memory_id])).size).toBe(0);
    expect((await memoriesByIds(pool, 'w-by-ids', [])).size).toBe(0);
  });
});

describe('recallPageStatement', () => {
  const bytewise = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const read = async (workspaceId: string, user: string | null, subject: string, page: { after: string | null; limit: number }) =>
    (await readInScope(pool, { workspace_id: workspaceId, user, all_users: false }, [recallPageStatement(workspaceId, subject, page)]))[0]!.rows as MemoryRecallRow[];

  it('pages a subject\'s memories in bytewise key order, after a key', async () => {
    const { memories } = await seeded('w-recall');
    const keys = memories.filter((m) => m.subject === 's' && m.timeline.fact_key.scope === 'workspace').map((m) => m.timeline.key).sort(bytewise);
    const first = await read('w-recall', 'bob', 's', { after: null, limit: 2 });
    expect(first.map((r) => r.key)).toEqual(keys.slice(0, 2));
    expect(first[0]).toEqual(expect.objectContaining({ subject: 's', scope: 'workspace', summary: expect.objectContaining({ v: 1 }), candidates: [] }));
    const rest = await read('w-recall', 'bob', 's', { after: first[1]!.key, limit: 10 });
    expect(rest.map((r) => r.key)).toEqual(keys.slice(2));
    expect(await read('w-recall', 'bob', 's', { after: keys.at(-1)!, limit: 10 })).toEqual([]);
    expect(() => recallPageStatement('w', 's', { after: null, limit: 0 })).toThrow(RangeError);
  });

  it('shows a personal memory to its owner only: the scope is the key\'s', async () => {
    const { editor } = await seeded('w-recall-scope');
    const ids = async (user: string | null) => (await read('w-recall-scope', user, 's', { after: null, limit: 10 })).map((r) => r.id);
    expect(await ids('ann')).toContain(editor.timeline.memory_id);
    expect(await ids('bob')).not.toContain(editor.timeline.memory_id);
    expect(await ids(null)).not.toContain(editor.timeline.memory_id);
  });

  it('writes any subject and key as the values they are, quotes and backslashes included', async () => {
    const odd = "o'brien\\'; SELECT 1; --";
    const { claims, memories } = compiledFrom(await logEpisodes(pool, 'w-recall-odd', [{ idempotency_key: 'odd', subject: odd, body: claimBody('owner', 'eve') }]));
    await insertClaims(pool, claims);
    await insertMemories(pool, 'w-recall-odd', memories);
    const page = await read('w-recall-odd', null, odd, { after: null, limit: 10 });
    expect(page.map((r) => r.subject)).toEqual([odd]);
    // Every key opens with '[', which sorts before the quote-laden 'o…' and after a bare '"'.
    expect(await read('w-recall-odd', null, odd, { after: odd, limit: 10 })).toEqual([]);
    expect(await read('w-recall-odd', null, odd, { after: `"'\\`, limit: 10 })).toEqual(page);
  });
});

describe('candidateSidesStatement', () => {
  const read = async (workspaceId: string, user: string | null, ids: string[]) =>
    (await readInScope(pool, { workspace_id: workspaceId, user, all_users: false }, [candidateSidesStatement(workspaceId, ids)]))[0]!.rows;

  it('reads a candidate\'s scope, owner and stored side, as the key may see it', async () => {
    const { day, editor } = await seeded('w-candidate-rows');
    const expected = {
      id: day.timeline.memory_id,
      scope: 'workspace',
      owner: null,
      summary: { v: 1, from: null, memory: { status: 'in_force', predicate: 'deploy_day', qualifiers: {}, current: [{ value: 'Tuesday' }], conflict: [] } },
    };
    expect(await read('w-candidate-rows', null, [day.timeline.memory_id, 'no-such-memory'])).toEqual([expected]);
    // The stored side is what is read: a marker in it comes back as it is.
    await pool.query(`UPDATE memories SET side = jsonb_set(side, '{memory,predicate}', '"marked"') WHERE workspace_id = 'w-candidate-rows' AND id = $1`, [day.timeline.memory_id]);
    expect((await read('w-candidate-rows', null, [day.timeline.memory_id]))[0]!.summary).toMatchObject({ memory: { predicate: 'marked' } });
    expect(await read('w-candidate-rows', null, [])).toEqual([]);
    expect((await read('w-candidate-rows', 'bob', [editor.timeline.memory_id])).length).toBe(0);
    expect((await read('w-candidate-rows', 'ann', [editor.timeline.memory_id])).length).toBe(1);
    // An id is a value, whatever it holds.
    expect(await read('w-candidate-rows', null, ["x'); DELETE FROM memories; --", 'a\\b'])).toEqual([]);
    expect((await pool.query("SELECT count(*)::int AS n FROM memories WHERE workspace_id = 'w-candidate-rows'")).rows[0]).toEqual({ n: 5 });
  });
});

describe('summariesOfSubject', () => {
  it('maps each memory of a subject to its scope, stored summary, side, change flag, checkpoint, sealed blocks and what it keeps of its candidates', async () => {
    const { memories } = await seeded('w-summaries');
    const ofS = memories.filter((m) => m.subject === 's');
    expect(await summariesOfSubject(pool, 'w-summaries', 's')).toEqual(
      new Map(
        ofS.map((m) => [
          m.timeline.memory_id,
          {
            scope: m.timeline.fact_key.scope,
            owner: m.timeline.fact_key.owner,
            summary: m.summary,
            side: m.side,
            told_as_change: m.told_as_change,
            document_lineages: m.document_lineages,
            checkpoint: m.checkpoint,
            sealed: null,
            candidates: [],
            partner_sides: null,
          },
        ]),
      ),
    );
  });
});

describe('memoriesOfSubject', () => {
  it('reads every memory of a subject whole, in key order', async () => {
    const { memories } = await seeded('w-of-subject');
    const rows = await memoriesOfSubject(pool, 'w-of-subject', 's');
    expect(rows.map((r) => r.id).sort()).toEqual(memories.filter((m) => m.subject === 's').map((m) => m.timeline.memory_id).sort());
    expect(rows.map((r) => r.key)).toEqual([...rows.map((r) => r.key)].sort());
    expect(rows.every((r) => r.timeline.memory_id === r.id)).toBe(true);
  });
});

describe('personalDigestsOfSubject', () => {
  it("reads the digests of a subject's personal memories by owner, and none of its other memories", async () => {
    const { editor } = await seeded('w-personal');
    expect(await personalDigestsOfSubject(pool, 'w-personal', 's')).toEqual(new Map([['ann', [editor.digest]]]));
    expect(await personalDigestsOfSubject(pool, 'w-personal', 't')).toEqual(new Map());
    expect(await personalDigestsOfSubject(pool, 'w-elsewhere', 's')).toEqual(new Map());
  });
});

describe('updateMemoriesIfRevision', () => {
  it('writes a timeline only over the revision it read, and names the memory that went stale', async () => {
    const { day, claims } = await seeded('w-update');
    const [later] = await logEpisodes(pool, 'w-update', [{ idempotency_key: 'day-2', subject: 's', body: claimBody('deploy_day', 'Thursday') }]);
    const dayClaims = [...claims.filter((c) => c.memory_id === day.timeline.memory_id), ...extract(later!, DEFAULT_POLICY_SET)];
    const next = memoryWrite(fold(dayClaims, policyFor(DEFAULT_POLICY_SET, 'deploy_day'), []), 's');
    const expected = { revision: day.timeline.revision, etag: day.etag };
    expect(await updateMemoriesIfRevision(pool, 'w-update', [{ write: next, expected }])).toEqual({ ok: true });
    const stored = (await memoriesByIds(pool, 'w-update', [day.timeline.memory_id])).get(day.timeline.memory_id)!;
    expect([stored.revision, stored.etag]).toEqual([next.timeline.revision, next.etag]);
    // The same update again read the old revision: stale, and nothing written.
    expect(await updateMemoriesIfRevision(pool, 'w-update', [{ write: day, expected }])).toEqual({ ok: false, reason: 'stale', id: day.timeline.memory_id });
    expect((await memoriesByIds(pool, 'w-update', [day.timeline.memory_id])).get(day.timeline.memory_id)!.etag).toBe(next.etag);
    expect(await updateMemoriesIfRevision(pool, 'w-update', [])).toEqual({ ok: true });
  });
});

describe('updateCheckpoints', () => {
  it('sets a checkpoint only over the revision it read, and a compile reads it back as written', async () => {
    const { day, claims } = await seeded('w-checkpoint');
    const id = day.timeline.memory_id;
    const { checkpoint } = foldWithCheckpoint(claims.filter((c) => c.memory_id === id), policyFor(DEFAULT_POLICY_SET, 'deploy_day'), []);
    expect(checkpoint).not.toBeNull();
    // Only a compile's read carries it (and whether a claim was told as a change).
    expect((await memoriesByIds(pool, 'w-checkpoint', [id])).get(id)!.checkpoint).toBeUndefined();
    const read = async () => (await memoriesByIds(pool, 'w-checkpoint', [id], { checkpoint: true })).get(id)!;
    expect((await read()).checkpoint).toBeNull();
    const expected = { revision: day.timeline.revision, etag: day.etag };
    expect(await updateCheckpoints(pool, 'w-checkpoint', [{ id, checkpoint, expected }])).toEqual({ ok: true });
    expect(await read()).toMatchObject({ checkpoint: JSON.parse(JSON.stringify(checkpoint)), told_as_change: false, etag: day.etag });
    // Over another revision: stale, and nothing written.
    expect(await updateCheckpoints(pool, 'w-checkpoint', [{ id, checkpoint: null, expected: { ...expected, revision: 99 } }])).toEqual({ ok: false, reason: 'stale', id });
    expect((await read()).checkpoint).not.toBeNull();
    expect(await updateCheckpoints(pool, 'w-checkpoint', [])).toEqual({ ok: true });
  });
});

describe('deleteDerivedOfSubject', () => {
  it('removes every derived row of one subject and leaves the log and other subjects alone', async () => {
    const { memories, episodes } = await seeded('w-derived');
    await writeProjections(pool, 'w-derived', memories.map((write) => ({ write, before: null })));
    await insertMarkers(pool, 'w-derived', 's', episodes.filter((e) => e.subject === 's').map((e) => e.id), { id: '00000000-0000-4000-8000-000000000001', compiler_version: 'v', policy_fingerprint: 'f' });
    const state = { workspace_id: 'w-derived', state_hash: 'h', compiler_version: 'v', policy_fingerprint: 'f', memories: 1, open_conflicts: 0, personal_sums: {} };
    await upsertSubject(pool, { ...state, subject: 's' });
    await upsertSubject(pool, { ...state, subject: 't' });
    await deleteDerivedOfSubject(pool, 'w-derived', 's');
    expect(await memoriesOfSubject(pool, 'w-derived', 's')).toEqual([]);
    expect(await projectionRowsOfSubject(pool, 'w-derived', 's')).toEqual({ values: [], evidence: new Map(), decisions: new Map() });
    expect(await getSubject(pool, 'w-derived', 's')).toBeNull();
    const ids = memories.filter((m) => m.subject === 's').map((m) => m.timeline.memory_id);
    expect((await claimCountsOfMemories(pool, 'w-derived', ids)).size).toBe(0);
    const { rows } = await pool.query('SELECT 1 FROM episode_markers WHERE workspace_id = $1', ['w-derived']);
    expect(rows).toEqual([]);
    expect(await memoriesOfSubject(pool, 'w-derived', 't')).toHaveLength(1);
    expect(await getSubject(pool, 'w-derived', 't')).not.toBeNull();
  });
});

describe('memoryHeadsOfSubject', () => {
  it('reads what a rebuild compares of each memory', async () => {
    const { day, editor } = await seeded('w-heads');
    const heads = await memoryHeadsOfSubject(pool, 'w-heads', 's');
    expect(heads.find((h) => h.id === day.timeline.memory_id)).toEqual({
      id: day.timeline.memory_id,
      key: day.timeline.key,
      predicate: 'deploy_day',
      scope: 'workspace',
      owner: null,
      digest: day.digest,
      summary: day.summary,
    });
    expect(heads.find((h) => h.id === editor.timeline.memory_id)).toEqual(expect.objectContaining({ scope: 'personal', owner: 'ann' }));
  });
});

describe('conflictedMemories', () => {
  it('lists memories holding two values at the instant asked, of a subject or the workspace, up to a limit', async () => {
    const { region, memories } = await seeded('w-conflicts');
    await writeProjections(pool, 'w-conflicts', memories.map((write) => ({ write, before: null })));
    expect(region.timeline.status_hint).toBe('conflicted');
    const now = '2030-01-01T00:00:00.000Z';
    expect((await conflictedMemories(pool, 'w-conflicts', 's', 10, now)).map((m) => m.id)).toEqual([region.timeline.memory_id]);
    expect((await conflictedMemories(pool, 'w-conflicts', null, 10, now)).map((m) => m.id)).toEqual([region.timeline.memory_id]);
    expect(await conflictedMemories(pool, 'w-conflicts', 't', 10, now)).toEqual([]);
    expect(await conflictedMemories(pool, 'w-conflicts', null, 0, now)).toEqual([]);
    // Before either side was stated, nothing was in dispute.
    expect(await conflictedMemories(pool, 'w-conflicts', null, 10, '1990-01-01T00:00:00.000Z')).toEqual([]);
  });
});

describe('memoriesPage', () => {
  it('pages what the viewer may see, with the total and the count per status', async () => {
    await seeded('w-page');
    const bob = await memoriesPage(pool, { workspaceId: 'w-page', subject: 's', user: 'bob', offset: 0, limit: 2 });
    expect(bob.rows).toHaveLength(2);
    expect([bob.total, bob.by_status]).toEqual([3, { in_force: 2, conflicted: 1 }]);
    const ann = await memoriesPage(pool, { workspaceId: 'w-page', subject: 's', user: 'ann', offset: 2, limit: 2 });
    expect([ann.rows.length, ann.total, ann.by_status]).toEqual([2, 4, { in_force: 3, conflicted: 1 }]);
    const past = await memoriesPage(pool, { workspaceId: 'w-page', subject: 's', user: 'ann', offset: 10, limit: 2 });
    expect([past.rows, past.total]).toEqual([[], 4]);
  });
});

describe('deleteMemories', () => {
  it('removes memories with their projections, and only those', async () => {
    const { memories, day, owner } = await seeded('w-delete');
    await writeProjections(pool, 'w-delete', memories.map((write) => ({ write, before: null })));
    await deleteMemories(pool, 'w-delete', [day.timeline.memory_id]);
    const left = await memoriesByIds(pool, 'w-delete', [day.timeline.memory_id, owner.timeline.memory_id]);
    expect([...left.keys()]).toEqual([owner.timeline.memory_id]);
    const projections = await projectionRowsOfSubject(pool, 'w-delete', 's');
    expect(projections.values.some((v) => v.memory_id === day.timeline.memory_id)).toBe(false);
    expect(projections.values.some((v) => v.memory_id === owner.timeline.memory_id)).toBe(true);
  });
});

describe('writeBlocks', () => {
  /** One key whose owner changes it 140 times, every change an hour after the last, in 2025. */
  async function longHistory(workspaceId: string) {
    const episodes = await logEpisodes(
      pool,
      workspaceId,
      Array.from({ length: 140 }, (_, i) => ({
        idempotency_key: `day-${i}`,
        subject: 's',
        occurred_at: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString(),
        body: claimBody('deploy_day', `day ${i}`),
      })),
      // One author: each statement updates the last (the author rule).
      { role: 'owner', user: 'ann' },
    );
    const { claims, memories } = compiledFrom(episodes);
    await insertClaims(pool, claims);
    return memories[0]!;
  }

  it('keeps the sealed blocks apart from the head, and every reader but a compile gets the whole timeline back', async () => {
    const whole = await longHistory('w-blocks');
    const cut = timelineHashes(whole.timeline, null, '2030-01-01T00:00:00.000Z');
    expect(cut.blocks.map((b) => [b.kind, b.n])).toEqual([
      ['values', 0],
      ['values', 1],
    ]);
    const write = { ...whole, json: cut.json, sealed: cut.sealed, blocks: cut.blocks };
    await insertMemories(pool, 'w-blocks', [write]);
    await writeBlocks(pool, 'w-blocks', [write]);
    const id = whole.timeline.memory_id;
    expect((await memoriesByIds(pool, 'w-blocks', [id])).get(id)!.timeline).toEqual(whole.timeline);
    expect((await memoriesOfSubject(pool, 'w-blocks', 's'))[0]!.timeline).toEqual(whole.timeline);
    // A compile's read: the head past the blocks, and their hashes.
    const head = (await memoriesByIds(pool, 'w-blocks', [id], { checkpoint: true })).get(id)!;
    expect(head.timeline.values).toEqual(whole.timeline.values.slice(128));
    expect(head.sealed).toEqual(cut.sealed);

    // Cut afresh with an earlier bound (a fold from all claims): the stored blocks are replaced.
    const fewer = timelineHashes(whole.timeline, null, '2025-01-04T00:00:00.000Z');
    expect(fewer.blocks).toHaveLength(1);
    const again = { ...whole, json: fewer.json, sealed: fewer.sealed, blocks: fewer.blocks, replaceBlocks: true };
    expect(await updateMemoriesIfRevision(pool, 'w-blocks', [{ write: again, expected: { revision: whole.timeline.revision, etag: whole.etag } }])).toEqual({ ok: true });
    await writeBlocks(pool, 'w-blocks', [again]);
    const { rows } = await pool.query('SELECT kind, n FROM memory_blocks WHERE workspace_id = $1', ['w-blocks']);
    expect(rows).toEqual([{ kind: 'values', n: 0 }]);
    expect((await memoriesByIds(pool, 'w-blocks', [id])).get(id)!.timeline).toEqual(whole.timeline);
    // And the memory's deletion takes them.
    await deleteMemories(pool, 'w-blocks', [id]);
    expect((await pool.query('SELECT count(*)::int AS n FROM memory_blocks WHERE workspace_id = $1', ['w-blocks'])).rows).toEqual([{ n: 0 }]);
  });

  it('writes nothing for writes that sealed nothing', async () => {
    const whole = await longHistory('w-no-blocks');
    await insertMemories(pool, 'w-no-blocks', [whole]);
    await writeBlocks(pool, 'w-no-blocks', [whole]);
    expect((await pool.query('SELECT count(*)::int AS n FROM memory_blocks WHERE workspace_id = $1', ['w-no-blocks'])).rows).toEqual([{ n: 0 }]);
    const id = whole.timeline.memory_id;
    expect((await memoriesByIds(pool, 'w-no-blocks', [id])).get(id)!.timeline).toEqual(whole.timeline);
  });
});
