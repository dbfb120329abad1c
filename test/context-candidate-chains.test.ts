import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Three statements of who owns a service, one a candidate of the two others, which are none of each
// other's: it is a side of two possible contradictions. The bundle stated the first pair it met and
// then the third statement as a plain fact, because its only candidate had been stated already.

let canon: TestCanon;
let key: string;
const SUBJECT = 'service:payments';

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  const owner = await canon.key('owner');
  key = owner.key;
  const texts = [
    'The payments service is owned by the Platform team.',
    'Ownership of the payments service moved to the Checkout team.',
    'Checkout now owns the payments service.',
  ];
  await canon.runtime.ingest(owner.principal, texts.map((text, i) => ({ idempotency_key: `own-${i}`, subject: SUBJECT, occurred_at: `2026-03-0${i + 1}T00:00:00Z`, body: { text } })));
  await canon.runtime.compile(owner.principal, { subject: SUBJECT });
});
afterAll(() => canon.close());

describe('the context bundle with a chain of candidates', () => {
  it('states every value with a possible contradiction as one, also when its partner was stated on an earlier line', async () => {
    const res = await canon.request('/v1/context', { key, json: { subject: SUBJECT, task: 'Who owns the payments service?', max_tokens: 2000 } });
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as { text: string; memory_ids: string[]; possible_contradictions: Array<{ memory_ids: string[] }> };
    const lines = bundle.text.trim().split('\n').slice(1);
    // No value of the three is a plain fact: each is on a POSSIBLE CONTRADICTION line.
    for (const value of ['owned by the Platform team', 'moved to the Checkout team', 'Checkout now owns']) {
      const holding = lines.filter((l) => l.includes(value));
      expect(holding.length, value).toBeGreaterThan(0);
      for (const l of holding) expect(l, value).toMatch(/^- POSSIBLE CONTRADICTION/);
    }
    expect(bundle.possible_contradictions).toHaveLength(2);
    // Each memory once in the bundle's list, whatever line names it again.
    expect(new Set(bundle.memory_ids).size).toBe(bundle.memory_ids.length);
    expect(bundle.memory_ids).toHaveLength(3);
  });

  it('marks a value with a possible contradiction needs_verification in search, as recall does', async () => {
    const recall = await (await canon.request(`/v1/subjects/${encodeURIComponent(SUBJECT)}/memories`, { key })).json();
    const flagged = new Map((recall.memories as Array<{ id: string; needs_verification: boolean }>).map((m) => [m.id, m.needs_verification] as const));
    expect([...flagged.values()]).toEqual([true, true, true]);
    const found = await (await canon.request(`/v1/search?q=${encodeURIComponent('payments service')}&subject=${encodeURIComponent(SUBJECT)}`, { key })).json();
    const results = found.results as Array<{ memory_id: string; needs_verification: boolean }>;
    expect(results.length).toBe(3);
    for (const r of results) expect(r.needs_verification, r.memory_id).toBe(flagged.get(r.memory_id));
  });
});

describe('notes of a subject that share only its name', () => {
  // Four facts about service:orders, each starting "The orders …": the opening every note of the
  // subject may share made each pair a possible contradiction, and the bundle stated none as a fact.
  const ORDERS = 'service:orders';
  const notes = [
    'The orders on-call is Alice.',
    'The orders service is owned by the Platform team.',
    'The orders dashboard lives in Grafana.',
    'The orders runbook is maintained by the SRE guild.',
  ];

  it('are four facts: no candidates, nothing to verify, no possible contradiction in the bundle', async () => {
    const owner = await canon.key('owner');
    await canon.runtime.ingest(owner.principal, notes.map((text, i) => ({ idempotency_key: `orders-${i}`, subject: ORDERS, occurred_at: `2026-03-1${i}T00:00:00Z`, body: { text } })));
    await canon.runtime.compile(owner.principal, { subject: ORDERS });
    const recall = await (await canon.request(`/v1/subjects/${encodeURIComponent(ORDERS)}/memories`, { key })).json();
    const memories = recall.memories as Array<{ needs_verification: boolean; candidates: unknown[] }>;
    expect(memories).toHaveLength(4);
    for (const m of memories) {
      expect(m.candidates).toEqual([]);
      expect(m.needs_verification).toBe(false);
    }
    const res = await canon.request('/v1/context', { key, json: { subject: ORDERS, task: 'Who is on call for orders and where is its dashboard?', max_tokens: 2000 } });
    const bundle = (await res.json()) as { text: string; possible_contradictions: unknown[] };
    expect(bundle.possible_contradictions).toEqual([]);
    expect(bundle.text).not.toMatch(/POSSIBLE CONTRADICTION/);
  });
});
