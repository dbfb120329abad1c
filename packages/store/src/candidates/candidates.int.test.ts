import { describe, expect, it } from 'vitest';
import { claimBody, compiledFrom, logEpisodes, memoryWrite, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { insertClaims } from '../claims/insert-claims.js';
import { insertMemories } from '../memories/insert-memories.js';
import { memoryIdLinkingKey } from './memory-id-linking-key.js';
import { memoryShapesOfSubject } from './memory-shapes-of-subject.js';
import type { CandidateRefRow } from './rows.js';
import { PARTNER_SIDES_STATEMENT, refreshPartnerSides } from './refresh-partner-sides.js';
import { setCandidates } from './set-candidates.js';

// Near memories of a subject (shown, never applied) and the keys links joined.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

async function seeded(workspaceId: string) {
  const episodes = await logEpisodes(pool, workspaceId, [
    { idempotency_key: 'note', subject: 's', body: { text: 'The team likes green tea.' } },
    { idempotency_key: 'day', subject: 's', body: claimBody('release_day', 'Friday') },
  ]);
  const compiled = compiledFrom(episodes);
  const { claims } = compiled;
  // The release day as a document's key (its one lineage), the note a message's.
  const memories = compiled.memories.map((m) => (m.timeline.fact_key.predicate === 'release_day' ? { ...m, document_lineages: ['docs/release.md'] } : m));
  await insertClaims(pool, claims);
  await insertMemories(pool, workspaceId, memories);
  return { claims, memories, note: memories.find((m) => m.timeline.fact_key.predicate === 'note')!, day: memories.find((m) => m.timeline.fact_key.predicate === 'release_day')! };
}

describe('memoryShapesOfSubject', () => {
  it('reads each memory\'s key, a note\'s words, and its candidates', async () => {
    const { note, day } = await seeded('w-shapes');
    const shapes = await memoryShapesOfSubject(pool, 'w-shapes', 's');
    expect(shapes).toHaveLength(2);
    expect(shapes.find((s) => s.id === note.timeline.memory_id)).toEqual({ id: note.timeline.memory_id, key: note.timeline.key, note_text: note.timeline.values[0]!.value, told_as_change: false, document_lineages: [], candidates: [] });
    expect(shapes.find((s) => s.id === day.timeline.memory_id)).toMatchObject({ note_text: null, document_lineages: ['docs/release.md'] });
    expect(await memoryShapesOfSubject(pool, 'w-shapes', 'none')).toEqual([]);
  });
});

describe('setCandidates', () => {
  it('replaces the candidates of the named memories only', async () => {
    const { note, day } = await seeded('w-set');
    const ref: CandidateRefRow = { memory_id: day.timeline.memory_id, score: 0.8, reason: 'same words' };
    await setCandidates(pool, 'w-set', [{ id: note.timeline.memory_id, candidates: [ref] }]);
    const shapes = await memoryShapesOfSubject(pool, 'w-set', 's');
    expect(shapes.find((s) => s.id === note.timeline.memory_id)!.candidates).toEqual([ref]);
    expect(shapes.find((s) => s.id === day.timeline.memory_id)!.candidates).toEqual([]);
    await setCandidates(pool, 'w-set', [{ id: note.timeline.memory_id, candidates: [] }]);
    expect((await memoryShapesOfSubject(pool, 'w-set', 's')).every((s) => s.candidates.length === 0)).toBe(true);
  });
});

describe('refreshPartnerSides', () => {
  const partners = async (workspaceId: string) =>
    new Map((await pool.query<{ id: string; partner_sides: unknown }>('SELECT id, partner_sides FROM memories WHERE workspace_id = $1', [workspaceId])).rows.map((r) => [r.id, r.partner_sides] as const));

  it('copies each candidate\'s scope, owner and side into the rows naming it, and clears a row whose candidates are gone', async () => {
    const { note, day } = await seeded('w-partners');
    const [n, d] = [note.timeline.memory_id, day.timeline.memory_id];
    const pair = (to: string): CandidateRefRow[] => [{ memory_id: to, score: 0.8, reason: 'same words' }];
    await setCandidates(pool, 'w-partners', [{ id: n, candidates: pair(d) }, { id: d, candidates: pair(n) }]);
    // The note's side is new: the day's row, which shows the note, is rewritten as well.
    expect(await refreshPartnerSides(pool, 'w-partners', [n])).toBe(2);
    const kept = await partners('w-partners');
    expect(kept.get(n)).toEqual({ [d]: { scope: 'workspace', owner: null, side: JSON.parse(JSON.stringify(day.side)) } });
    expect(kept.get(d)).toEqual({ [n]: { scope: 'workspace', owner: null, side: JSON.parse(JSON.stringify(note.side)) } });
    // Unchanged: nothing is written.
    expect(await refreshPartnerSides(pool, 'w-partners', [n, d])).toBe(0);
    // The day's side changes: the note's row follows.
    await pool.query(`UPDATE memories SET side = jsonb_set(side, '{memory,current,0,value}', '"Monday"') WHERE id = $1`, [d]);
    expect(await refreshPartnerSides(pool, 'w-partners', [d])).toBe(1);
    expect(JSON.stringify((await partners('w-partners')).get(n))).toContain('Monday');
    await setCandidates(pool, 'w-partners', [{ id: n, candidates: [] }, { id: d, candidates: [] }]);
    expect(await refreshPartnerSides(pool, 'w-partners', [n, d])).toBe(2);
    expect([...(await partners('w-partners')).values()]).toEqual([null, null]);
    expect(await refreshPartnerSides(pool, 'w-partners', [])).toBe(0);
  });

  it('rewrites a row that shows a memory which does not show it back (a row keeps its best candidates only)', async () => {
    const { note, day } = await seeded('w-one-way');
    const [n, d] = [note.timeline.memory_id, day.timeline.memory_id];
    // The note shows the day; the day, with a full list of better candidates, does not show the note.
    const better = Array.from({ length: 20 }, (_, i) => ({ memory_id: `other-${String(i).padStart(2, '0')}`, score: 0.9, reason: 'same words' }));
    await setCandidates(pool, 'w-one-way', [
      { id: n, candidates: [{ memory_id: d, score: 0.8, reason: 'same words' }] },
      { id: d, candidates: better },
    ]);
    await refreshPartnerSides(pool, 'w-one-way', [n]);
    expect(JSON.stringify((await partners('w-one-way')).get(n))).toContain('Friday');
    await pool.query(`UPDATE memories SET side = jsonb_set(side, '{memory,current,0,value}', '"Monday"') WHERE id = $1`, [d]);
    // Only the day's side changed: the note's row is found by its own list.
    expect(await refreshPartnerSides(pool, 'w-one-way', [d])).toBe(1);
    expect(JSON.stringify((await partners('w-one-way')).get(n))).toContain('Monday');
    expect((await partners('w-one-way')).get(d)).toBeNull(); // the others it names are no memories here
  });
});

describe('refreshPartnerSides in a workspace the statistics undercount', () => {
  it('reads the rows it rewrites and the sides they show by key, never the workspace joined with itself', async () => {
    // Statistics taken when the workspace held 40 memories, then 1,960 more written before
    // autovacuum analyzed them, as after a bulk load (the paraphrase evaluation's workspace, 75
    // rows to the planner and 3,520 in the table): the join once planned over this read every row
    // of the workspace twice (a hash join of it with itself, each row's sides aggregated to be
    // compared). No step of the plan may carry more than a subject's rows (100 here), nowhere
    // near the workspace's 2,000.
    const episodes = await logEpisodes(
      pool,
      'w-many',
      Array.from({ length: 2000 }, (_, i) => ({ idempotency_key: `m-${i}`, subject: `s-${i % 20}`, body: claimBody(`setting_${i}`, i) })),
    );
    const { memories } = compiledFrom(episodes);
    await insertMemories(pool, 'w-many', memories.slice(0, 40));
    await pool.query('ANALYZE memories');
    await insertMemories(pool, 'w-many', memories.slice(40));
    const [a, b] = [memories[0]!.timeline.memory_id, memories[20]!.timeline.memory_id];
    const pair = (to: string): CandidateRefRow[] => [{ memory_id: to, score: 0.8, reason: 'same words' }];
    await setCandidates(pool, 'w-many', [{ id: a, candidates: pair(b) }, { id: b, candidates: pair(a) }]);
    interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${PARTNER_SIDES_STATEMENT}`, ['w-many', [a], 20]);
      await client.query('ROLLBACK');
      const widest = (n: PlanNode): number => Math.max(n['Actual Rows'] * n['Actual Loops'], ...(n.Plans ?? []).map(widest));
      expect(widest(rows[0]!['QUERY PLAN'][0]!.Plan)).toBeLessThanOrEqual(110);
      const types = (n: PlanNode): string[] => [`${n['Node Type']}${n['Relation Name'] ? ` ${n['Relation Name']}` : ''}`, ...(n.Plans ?? []).flatMap(types)];
      // Every row is found by key (primary key, or a subject's index for a full list), never by a scan of the table.
      expect(types(rows[0]!['QUERY PLAN'][0]!.Plan).filter((t) => t.startsWith('Seq Scan'))).toEqual([]);
    } finally {
      client.release();
    }
    expect(await refreshPartnerSides(pool, 'w-many', [a])).toBe(2);
  });
});

describe('memoryIdLinkingKey', () => {
  it('finds the memory a linked-away key now lives in, and null for a key no memory links', async () => {
    const [a, b] = await logEpisodes(pool, 'w-linking', [
      { idempotency_key: 'a', subject: 's', body: claimBody('release_day', 'Friday') },
      { idempotency_key: 'b', subject: 's', body: claimBody('ship_day', 'Friday') },
    ]);
    const { claims, memories } = compiledFrom([a!, b!]);
    await insertClaims(pool, claims);
    const [keep, alias] = memories;
    // The alias keeps no row of its own: the kept memory's timeline names its key.
    await insertMemories(pool, 'w-linking', [memoryWrite({ ...keep!.timeline, linked: [alias!.timeline.key] }, 's')]);
    expect(await memoryIdLinkingKey(pool, 'w-linking', alias!.timeline.memory_id)).toBe(keep!.timeline.memory_id);
    expect(await memoryIdLinkingKey(pool, 'w-linking', keep!.timeline.memory_id)).toBeNull();
    expect(await memoryIdLinkingKey(pool, 'w-linking', 'no-such-memory')).toBeNull();
  });
});
