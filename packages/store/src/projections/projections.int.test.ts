import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { claimBody, compiledFrom, logEpisodes, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { insertMemories } from '../memories/insert-memories.js';
import { decisionsOfEpisodes } from './decisions-of-episodes.js';
import { projectionRowsOfSubject } from './projection-rows-of-subject.js';
import { searchText } from './search-text.js';
import { writeProjections } from './write-projections.js';

// The rows projected from each timeline (values, evidence, decisions), written as a diff.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

/** One key stated, then restated by its author with another value: the first timeline and the second. */
async function twoVersions(workspaceId: string) {
  const [first, second] = await logEpisodes(pool, workspaceId, [
    { idempotency_key: 'e1', subject: 's', occurred_at: '2026-01-01T00:00:00.000Z', body: claimBody('deploy_day', 'Tuesday', { qualifiers: { env: 'prod' } }) },
    { idempotency_key: 'e2', subject: 's', occurred_at: '2026-02-01T00:00:00.000Z', body: claimBody('deploy_day', 'Thursday', { qualifiers: { env: 'prod' } }) },
  ], { role: 'owner', user: 'ann' });
  const before = compiledFrom([first!]).memories[0]!;
  const after = compiledFrom([first!, second!]).memories[0]!;
  return { first: first!, second: second!, before, after };
}

const valuesOf = (t: { memory_id: string; values: ReadonlyArray<{ value: unknown; valid_from: string; valid_to: string | null; status: string }> }) =>
  t.values.map((v, ord) => ({ memory_id: t.memory_id, ord, value: v.value, valid_from: v.valid_from, valid_to: v.valid_to, status: v.status }));

describe('writeProjections', () => {
  it('projects a new memory whole, then writes only what a new timeline changed', async () => {
    const { before, after } = await twoVersions('w-write');
    await insertMemories(pool, 'w-write', [before]);
    await writeProjections(pool, 'w-write', [{ write: before, before: null }]);
    expect((await projectionRowsOfSubject(pool, 'w-write', 's')).values).toEqual(valuesOf(before.timeline));

    await writeProjections(pool, 'w-write', [{ write: after, before: before.timeline }]);
    const rows = await projectionRowsOfSubject(pool, 'w-write', 's');
    expect(after.timeline.values.map((v) => v.status)).toEqual(['superseded', 'in_force']);
    expect(rows.values).toEqual(valuesOf(after.timeline));
    expect(rows.evidence.get(after.timeline.memory_id)).toHaveLength(2);
    expect(rows.decisions.get(after.timeline.memory_id)).toHaveLength(after.timeline.decisions.length);

    // Back to the first timeline: the second value's rows go.
    await writeProjections(pool, 'w-write', [{ write: before, before: after.timeline }]);
    const back = await projectionRowsOfSubject(pool, 'w-write', 's');
    expect(back.values).toEqual(valuesOf(before.timeline));
    expect(back.evidence.get(before.timeline.memory_id)).toHaveLength(1);
    expect(back.decisions.get(before.timeline.memory_id)).toHaveLength(before.timeline.decisions.length);
    const { rows: text } = await pool.query<{ search_text: string }>('SELECT search_text FROM memory_values WHERE workspace_id = $1', ['w-write']);
    expect(text.map((r) => r.search_text)).toEqual([searchText(before.timeline, 'Tuesday')]);
    expect(text[0]!.search_text).toBe('deploy day env prod Tuesday');
  });
});

/** Every projected row of a workspace, every column but the workspace, in one order. */
async function allRows(workspaceId: string) {
  const read = async (table: string, order: string) =>
    (await pool.query(`SELECT * FROM ${table} WHERE workspace_id = $1 ORDER BY ${order}`, [workspaceId])).rows.map(({ workspace_id: _, ...r }) => r);
  return {
    values: await read('memory_values', 'memory_id, ord'),
    evidence: await read('evidence', 'memory_id, value_ord, source, idempotency_key, claim_index'),
    decisions: await read('claim_decisions', 'memory_id, source, idempotency_key, claim_index'),
  };
}

describe('writeProjections, as a diff', () => {
  it('leaves the rows that writing the last timeline whole leaves, after any sequence of timelines of a key', async () => {
    // Six statements of one key by two authors, some backdated: each step's timeline is folded
    // from a different subset, so rows change at the end, in the middle, and go.
    const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday'];
    const logged = await logEpisodes(
      pool,
      'w-diff',
      Array.from({ length: 6 }, (_, i) => ({
        idempotency_key: `d${i}`,
        subject: 's',
        occurred_at: `2026-01-0${i + 1}T00:00:00.000Z`,
        body: claimBody('deploy_day', days[(i * 3) % days.length]!, i % 3 === 2 ? { effective_from: '2025-12-01T00:00:00.000Z' } : {}),
      })),
      { role: 'owner', user: 'ann' },
    );
    const member = await logEpisodes(pool, 'w-diff', [{ idempotency_key: 'm', subject: 's', occurred_at: '2026-01-03T12:00:00.000Z', body: claimBody('deploy_day', 'Friday') }], { role: 'member', user: 'bo' });
    const pool7 = [...logged, ...member];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.subarray(pool7, { minLength: 1 }), { minLength: 1, maxLength: 4 }), async (steps) => {
        run += 1;
        const ws = `w-diff-${run}`;
        const writes = steps.map((subset) => compiledFrom(subset).memories[0]!);
        await writeProjections(pool, ws, [{ write: writes[0]!, before: null }]);
        for (let i = 1; i < writes.length; i += 1) await writeProjections(pool, ws, [{ write: writes[i]!, before: writes[i - 1]!.timeline }]);
        const diffed = await allRows(ws);
        // The last timeline written whole, into a workspace of its own: only the rows are compared.
        const whole = `${ws}-whole`;
        await writeProjections(pool, whole, [{ write: writes.at(-1)!, before: null }]);
        expect(diffed).toEqual(await allRows(whole));
        expect(diffed.decisions).toHaveLength(writes.at(-1)!.timeline.decisions.length);
      }),
      { numRuns: 60 },
    );
  });
});

describe('projectionRowsOfSubject', () => {
  it('reads a subject\'s projections, keyed by memory, and nothing of another subject', async () => {
    const { after } = await twoVersions('w-rows');
    await insertMemories(pool, 'w-rows', [after]);
    await writeProjections(pool, 'w-rows', [{ write: after, before: null }]);
    const rows = await projectionRowsOfSubject(pool, 'w-rows', 's');
    const evidence = after.timeline.values.flatMap((v, ord) => v.evidence.map((e) => `${ord}|${e.source}|${e.idempotency_key}|${e.index}`));
    expect(rows.evidence).toEqual(new Map([[after.timeline.memory_id, expect.arrayContaining(evidence)]]));
    const decisions = after.timeline.decisions.map((d) => `${d.claim.source}|${d.claim.idempotency_key}|${d.claim.index}|${d.kind}`);
    expect(rows.decisions).toEqual(new Map([[after.timeline.memory_id, expect.arrayContaining(decisions)]]));
    expect(await projectionRowsOfSubject(pool, 'w-rows', 'other')).toEqual({ values: [], evidence: new Map(), decisions: new Map() });
  });
});

describe('decisionsOfEpisodes', () => {
  it('answers what the compile decided about each claim of these episodes', async () => {
    const { first, second, after } = await twoVersions('w-decisions');
    await insertMemories(pool, 'w-decisions', [after]);
    await writeProjections(pool, 'w-decisions', [{ write: after, before: null }]);
    const out = await decisionsOfEpisodes(pool, 'w-decisions', [second.id, first.id, second.id]);
    const expected = after.timeline.decisions.map((d) => ({
      episode_id: d.claim.idempotency_key === 'e1' ? first.id : second.id,
      memory_id: after.timeline.memory_id,
      index: d.claim.index,
      kind: d.kind,
      target: d.target,
      reason: d.reason,
    }));
    expect(out).toEqual(expected.sort((a, b) => (a.episode_id < b.episode_id ? -1 : 1)));
    expect(out.length).toBeGreaterThan(0);
    expect(await decisionsOfEpisodes(pool, 'w-decisions', [])).toEqual([]);
  });
});
