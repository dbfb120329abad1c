import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDIDATES_SHOWN } from '@canon/core';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// A subject of keys all worded alike (one sentence with its words capitalized thirty ways, as
// notes pasted from many places are: a template keeps case), each one a candidate of every other: the compile keeps every pair, and every reader is shown a memory's
// first CANDIDATES_SHOWN of them, best first — a page, a memory's detail, the inspector, the
// context bundle — so what a read costs does not grow with how many keys share a wording.

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
  it('keeps every pair in its row, best first, and the sides of the ones it shows', async () => {
    const rows = await stored();
    expect(rows).toHaveLength(WORDINGS);
    for (const r of rows) {
      // Every other key is a candidate: the pairs are the compile's, whatever is shown.
      expect(r.candidates).toHaveLength(WORDINGS - 1);
      const sorted = [...r.candidates].sort((p, q) => q.score - p.score || (p.memory_id < q.memory_id ? -1 : 1));
      expect(r.candidates).toEqual(sorted);
      expect(Object.keys(r.partner_sides ?? {}).sort()).toEqual(r.candidates.slice(0, CANDIDATES_SHOWN).map((c) => c.memory_id).sort());
    }
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
    const showingOf = (rows: typeof before, id: string) => rows.filter((r) => r.candidates.slice(0, CANDIDATES_SHOWN).some((c) => c.memory_id === id));
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
