import { NOTE_PREDICATE } from '@canon/core';
import type { Pair } from './pairs.js';
import type { PairOutcome, ParaphraseSystem } from './systems.js';

/** How the evaluation reaches Canon: its HTTP API with one key. */
export interface ParaphraseAccess {
  request(path: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response>;
  key: string;
}

interface Candidate {
  memory_id: string;
  kind: 'possible_contradiction' | 'possible_duplicate' | 'candidate';
  score: number;
  reason: string;
}

interface MemoryJson {
  id: string;
  predicate: string;
  status: string;
  current: Array<{ value: unknown }>;
  candidates: Candidate[];
}

/**
 * Canon through its HTTP API, as an agent uses it: each pair in a subject of its own, both texts
 * one POST /v1/episodes?compile=wait (text bodies, no structured claims), then
 * GET /v1/subjects/{s}/memories, and GET /v1/memories/{id} to tell which statement each memory
 * came from.
 */
export function canonParaphrases(access: ParaphraseAccess, run: string): ParaphraseSystem {
  const call = async (path: string, body?: unknown) => {
    const res = await access.request(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${access.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  return {
    name: 'Canon',
    description: 'the HTTP API: text episodes, compile, recall with candidates; no link is made',
    async run(pair: Pair): Promise<PairOutcome> {
      const subject = `${pair.subject}/${run}/${pair.id}`;
      const key = (n: number) => `${run}:${pair.id}:${n}`;
      await call('/v1/episodes?compile=wait', {
        episodes: [
          { source: 'eval', idempotency_key: key(1), subject, occurred_at: pair.first.occurred_at, body: { text: pair.first.text } },
          { source: 'eval', idempotency_key: key(2), subject, occurred_at: pair.second.occurred_at, body: { text: pair.second.text } },
        ],
      });
      const { memories } = (await call(`/v1/subjects/${encodeURIComponent(subject)}/memories`)) as { memories: MemoryJson[] };
      // Which statement each memory holds evidence of.
      const from = new Map<string, Set<number>>();
      for (const m of memories) {
        const detail = (await call(`/v1/memories/${m.id}`)) as { timeline: { values: Array<{ evidence: Array<{ idempotency_key: string }> }> } };
        const keys = new Set(detail.timeline.values.flatMap((v) => v.evidence.map((e) => e.idempotency_key)));
        from.set(m.id, new Set([1, 2].filter((n) => keys.has(key(n)))));
      }
      // A statement's fact is the memory of its value (README, "The slot rule"). A sentence beside
      // it with no value ("Heads up.", a sign-off) is kept as a note keyed by its wording, and two
      // statements that both carry one share that note, which says nothing about their facts. Only
      // a statement whose value the extractor did not take as one (a date read as "as of …") has
      // no memory but a note: then the note is its record.
      const recordsOf = (n: number) => {
        const all = memories.filter((m) => from.get(m.id)!.has(n));
        const valued = all.filter((m) => m.predicate !== NOTE_PREDICATE);
        return valued.length > 0 ? valued : all;
      };
      const ofFirst = recordsOf(1);
      const ofSecond = recordsOf(2);
      const shared = ofFirst.filter((m) => ofSecond.includes(m));
      const live = (m: MemoryJson) => m.status === 'current' || m.status === 'conflicted';
      const between = ofFirst.flatMap((a) => a.candidates.filter((c) => ofSecond.some((b) => b.id === c.memory_id && b.id !== a.id)));
      // Read from each side: a statement of lower standing (a hedge) is a possible contradiction of
      // the other, which from its own side stands and reads it as a candidate only (standing first).
      const back = ofSecond.flatMap((b) => b.candidates.filter((c) => ofFirst.some((a) => a.id === c.memory_id && a.id !== b.id)));
      const detail = {
        memories: memories.map((m) => ({ predicate: m.predicate, values: m.current.map((v) => v.value), status: m.status, from: [...from.get(m.id)!] })),
        candidates: between.map((c) => ({ kind: c.kind, score: c.score, reason: c.reason })),
      };
      if (shared.length > 0) {
        // One fact key for both: identity, not similarity (the same template) — a dispute or a change.
        const m = shared[0]!;
        return { records: 1, merged_by_similarity: false, flagged: m.status === 'conflicted', flagged_as_contradiction: m.status === 'conflicted', both_current: false, detail };
      }
      return {
        records: new Set([...ofFirst, ...ofSecond].map((m) => m.id)).size,
        merged_by_similarity: false,
        flagged: between.length > 0 || back.length > 0,
        flagged_as_contradiction: [...between, ...back].some((c) => c.kind === 'possible_contradiction'),
        both_current: ofFirst.some(live) && ofSecond.some(live),
        detail,
      };
    },
  };
}
