import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDIDATES_SHOWN, candidatesByMemory, findCandidates } from '@canon/core';
import { parseFactKey } from '@canon/runtime/internals';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// A subject of keys all worded alike (one sentence with its words capitalized thirty ways, as
// notes pasted from many places are: a template keeps case), each one a candidate of every other:
// a row keeps its best CANDIDATES_SHOWN of them, best first, and every reader is shown those — a
// page, a memory's detail, the inspector, the context bundle — so what a compile reads and a
// read costs do not grow with how many keys share a wording.

const WORDS = ['the', 'nightly', 'export', 'job', 'runs', 'on'];
const WORDINGS = 30;
/** The sentence with the words whose bits are set in `i` capitalized. */
const wording = (i: number) => WORDS.map((w, k) => ((i >> k) & 1 ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ');
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const SUBJECT = 'service:exports';

let canon: TestCanon;
let owner: Principal;
let key: string;

interface Ref {
  memory_id: string;
  score: number;
}
async function stored(): Promise<Array<{ id: string; candidates: Ref[]; partner_sides: Record<string, unknown> | null }>> {
  const { rows } = await canon.runtime.pool.query(`SELECT id, candidates, partner_sides FROM memories WHERE subject = $1 ORDER BY id`, [SUBJECT]);
  return rows;
}
async function get<T>(path: string): Promise<T> {
  const res = await canon.request(path, { key });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  ({ key, principal: owner } = await canon.key('owner'));
  const episodes = Array.from({ length: WORDINGS }, (_, i) => ({
    idempotency_key: `e-${i}`,
    subject: SUBJECT,
    occurred_at: `2026-03-01T00:${String(i).padStart(2, '0')}:00Z`,
    body: { text: `${wording(i)} ${DAYS[i % DAYS.length]}.` },
  }));
  await canon.runtime.ingest(owner, episodes);
  await canon.runtime.compile(owner, { subject: SUBJECT });
});
afterAll(() => canon.close());

describe('a memory worded like more keys than it shows', () => {
  it('keeps its best CANDIDATES_SHOWN pairs in its row, best first, and their sides', async () => {
    const rows = await stored();
    expect(rows).toHaveLength(WORDINGS);
    // Every other key is a candidate (the pairs every pair computed gives), the best of them kept.
    const { rows: keys } = await canon.runtime.pool.query(`SELECT id, key FROM memories WHERE subject = $1`, [SUBJECT]);
    const all = candidatesByMemory(findCandidates(keys.map((k) => ({ memory_id: k.id as string, fact_key: parseFactKey(k.key as string) }))));
    for (const r of rows) {
      expect(all.get(r.id)).toHaveLength(WORDINGS - 1);
      expect(r.candidates).toEqual(all.get(r.id)!.slice(0, CANDIDATES_SHOWN));
      expect(Object.keys(r.partner_sides ?? {}).sort()).toEqual(r.candidates.map((c) => c.memory_id).sort());
    }
  });

  it('keeps what every pair gives when the keys come one compile at a time, and when one is merged away', async () => {
    const subject = 'service:exports-one-by-one';
    for (let i = 0; i < WORDINGS; i += 1) {
      await canon.runtime.ingest(owner, [{ idempotency_key: `one-${i}`, subject, occurred_at: `2026-03-01T00:${String(i).padStart(2, '0')}:00Z`, body: { text: `${wording(i)} ${DAYS[i % DAYS.length]}.` } }]);
      await canon.runtime.compile(owner, { subject });
    }
    const lists = async () => (await canon.runtime.pool.query(`SELECT id, candidates FROM memories WHERE subject = $1 ORDER BY id`, [subject])).rows;
    const incremental = await lists();
    expect(incremental.every((r) => r.candidates.length === CANDIDATES_SHOWN)).toBe(true);
    await canon.runtime.rebuild(owner, subject);
    expect(await lists()).toEqual(incremental);
    // A link merges two keys: the rows that kept the one that went take in the next best.
    const [a, b] = incremental;
    const res = await canon.request('/v1/links', { key, json: { memories: [a.id, b.id], same: true, idempotency_key: 'merge-1', reason: 'one job' } });
    expect(res.status).toBeLessThan(300);
    await canon.runtime.compile(owner, { subject });
    const merged = await lists();
    expect(merged).toHaveLength(WORDINGS - 1);
    // One of the two keys is the group's canonical memory; the other's row is gone, and no list names it.
    const gone = [a.id, b.id].filter((id) => !merged.some((r) => r.id === id));
    expect(gone).toHaveLength(1);
    expect(merged.every((r) => r.candidates.length === CANDIDATES_SHOWN && !r.candidates.some((c: Ref) => c.memory_id === gone[0]))).toBe(true);
    await canon.runtime.rebuild(owner, subject);
    expect(await lists()).toEqual(merged);
    expect((await canon.runtime.verify(owner, subject)).differences).toEqual([]);
  });

  it('shows its first CANDIDATES_SHOWN on a page, in its detail and in the inspector', async () => {
    const rows = new Map((await stored()).map((r) => [r.id, r] as const));
    const shown = (id: string) => rows.get(id)!.candidates.slice(0, CANDIDATES_SHOWN).map((c) => c.memory_id);
    const page = await get<{ memories: Array<{ id: string; candidates: Array<{ memory_id: string; kind: string }> }> }>(`/v1/subjects/${encodeURIComponent(SUBJECT)}/memories?limit=7`);
    expect(page.memories).toHaveLength(7);
    for (const m of page.memories) {
      expect(m.candidates.map((c) => c.memory_id)).toEqual(shown(m.id));
      // Thirty keys over five weekdays: most of what each is shown disagrees with it.
      expect(m.candidates.some((c) => c.kind === 'possible_contradiction')).toBe(true);
    }
    const id = page.memories[3]!.id;
    const detail = await get<{ view: { candidates: Array<{ memory_id: string }> } }>(`/v1/memories/${id}`);
    expect(detail.view.candidates.map((c) => c.memory_id)).toEqual(shown(id));
    const inspected = await canon.runtime.inspectSubject(owner, SUBJECT, { perPage: 50 });
    expect(inspected.memories).toHaveLength(WORDINGS);
    for (const m of inspected.memories) expect(m.view.candidates.map((c) => c.memory_id)).toEqual(shown(m.id));
  });

  it('states in the context bundle only the candidates it shows', async () => {
    const res = await canon.request('/v1/context', { key, json: { subject: SUBJECT, task: 'when does the nightly export job run', max_tokens: 20000 } });
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as { possible_contradictions: Array<{ memory_ids: string[] }> };
    expect(bundle.possible_contradictions.length).toBeGreaterThan(0);
    for (const c of bundle.possible_contradictions) expect(c.memory_ids.length).toBeLessThanOrEqual(CANDIDATES_SHOWN + 1);
  });

  it('keeps the shown sides up to date through a change, as a rebuild and verify see them', async () => {
    // A memory some rows show and others do not (all score alike, so the first by id are shown).
    const before = await stored();
    const showingOf = (rows: typeof before, id: string) => rows.filter((r) => r.candidates.some((c) => c.memory_id === id));
    const id = before.map((r) => r.id).find((m) => showingOf(before, m).length > 0 && showingOf(before, m).length < WORDINGS - 1)!;
    expect(id).toBeDefined();
    const { rows: named } = await canon.runtime.pool.query(`SELECT predicate FROM memories WHERE id = $1`, [id]);
    const text = `${(named[0]!.predicate as string).replace('{weekday}', 'Sunday')}.`;
    await canon.runtime.ingest(owner, [{ idempotency_key: 'e-again', subject: SUBJECT, occurred_at: '2026-03-02T00:00:00Z', body: { text } }]);
    await canon.runtime.compile(owner, { subject: SUBJECT });
    expect((await canon.runtime.verify(owner, SUBJECT)).differences).toEqual([]);
    const incremental = await stored();
    // The rows that show the changed memory keep its new side; the others keep none of it.
    const showing = showingOf(incremental, id);
    expect(showing.length).toBeGreaterThan(0);
    for (const r of incremental) {
      const side = r.partner_sides?.[id] as { side: { memory: { current: Array<{ value: unknown }> } } } | undefined;
      if (showing.includes(r)) expect(side?.side.memory.current.map((v) => v.value)).toEqual(['Sunday']);
      else expect(side).toBeUndefined();
    }
    await canon.runtime.rebuild(owner, SUBJECT);
    expect(await stored()).toEqual(incremental);
  });
});
