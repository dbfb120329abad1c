import { factKeyString, sha256, shownCandidates, type Timeline } from '@canon/core';
import { linkEpisodesOfSubject, memoriesOfSubject, type Pool } from '@canon/store';
import { z } from 'zod';
import { log, subjectRef } from '../ops/log.js';
import type { Principal } from '../auth/principal.js';
import { withWorkspace } from '../auth/scope.js';
import { heldValuesAt } from './candidate-view.js';
import { linkMemories } from './link-memories.js';
import { RESOLVER_SOURCE } from './resolver-source.js';

/**
 * A resolver (design §1): an HTTP endpoint that may propose links for candidate pairs — a local
 * model, a hosted one, a rules service. Its answers are recorded in the log as link episodes of
 * source `resolver` by the resolver's key, with that key's standing (an agent's key: proposals;
 * a member's: links in force), so a rebuild replays them and never asks again. A resolver that
 * fails, times out or answers nonsense changes nothing and blocks nothing.
 */
export { RESOLVER_SOURCE } from './resolver-source.js';
export const RESOLVER_PROTOCOL = 'canon-resolver/1';

export interface ResolverSettings {
  url: string;
  timeoutMs: number;
}

const Side = z.object({ memory_id: z.string(), predicate: z.string(), qualifiers: z.record(z.string(), z.string()), values: z.array(z.unknown()) });
export type ResolverSide = z.infer<typeof Side>;

/** What Canon posts: the subject and the pairs not yet answered. */
export interface ResolverRequest {
  protocol: typeof RESOLVER_PROTOCOL;
  subject: string;
  pairs: Array<{ a: ResolverSide; b: ResolverSide; score: number; reason: string }>;
}

/** What a resolver answers: per pair it has an opinion on, one fact (`same: true`) or two. */
export const ResolverResponse = z.object({
  answers: z
    .array(
      z.object({
        a: z.string().min(1).max(128),
        b: z.string().min(1).max(128),
        same: z.boolean().nullable(),
        reason: z.string().max(2000).optional(),
      }),
    )
    .max(1000),
});

/** At most this many pairs per request: a subject of thousands of candidates is asked in slices. */
const PAIRS_PER_REQUEST = 50;

async function ask(settings: ResolverSettings, request: ResolverRequest): Promise<z.infer<typeof ResolverResponse> | null> {
  try {
    const res = await fetch(settings.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    if (!res.ok) throw new Error(`the resolver answered ${res.status}`);
    const parsed = ResolverResponse.safeParse(await res.json());
    if (!parsed.success) throw new Error(`the resolver's answer is not ${RESOLVER_PROTOCOL}: ${parsed.error.issues[0]?.message ?? ''}`);
    return parsed.data;
  } catch (err) {
    log().warn({ event: 'resolver_failed', err }, 'resolver failed; nothing recorded');
    return null;
  }
}

/** The idempotency key of the resolver's answer on a pair: one answer per pair, ever. */
export function resolverKey(a: string, b: string): string {
  const [x, y] = a < b ? [a, b] : [b, a];
  return `resolver:${sha256(`${x}\u0000${y}`).slice(0, 32)}`;
}

export interface ResolveResult {
  asked: number;
  recorded: number;
  failed: boolean;
}

/**
 * Asks the resolver about the candidate pairs of a subject it has not answered yet and records
 * each answer as a link by `principal` (the resolver's key). Called after a compile, never by a
 * rebuild: a rebuild reads the recorded answers from the log.
 */
export async function resolveCandidates(pool: Pool, principal: Principal, subject: string, settings: ResolverSettings): Promise<ResolveResult> {
  const { pairs, keys } = await withWorkspace(pool, principal, async (tx) => {
    const rows = await memoriesOfSubject(tx, principal.workspace_id, subject);
    const answered = new Set((await linkEpisodesOfSubject(tx, principal.workspace_id, subject)).filter((e) => e.source === RESOLVER_SOURCE).map((e) => e.idempotency_key));
    const byId = new Map(rows.map((r) => [r.id, r] as const));
    const now = new Date().toISOString();
    const side = (t: Timeline, id: string): ResolverSide => ({ memory_id: id, predicate: t.fact_key.predicate, qualifiers: t.fact_key.qualifiers, values: heldValuesAt(t, now) });
    const out: ResolverRequest['pairs'] = [];
    const keyOf = new Map<string, string>();
    const seen = new Set<string>();
    for (const r of rows) {
      keyOf.set(r.id, factKeyString(r.timeline.fact_key));
      // The pairs a reader is shown, each once: shown by either memory.
      for (const c of shownCandidates(r.candidates)) {
        const other = byId.get(c.memory_id);
        if (!other || c.score <= 0) continue;
        const pair = r.id < other.id ? `${r.id}\u0000${other.id}` : `${other.id}\u0000${r.id}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
        if (answered.has(resolverKey(factKeyString(r.timeline.fact_key), factKeyString(other.timeline.fact_key)))) continue;
        out.push({ a: side(r.timeline, r.id), b: side(other.timeline, other.id), score: c.score, reason: c.reason });
      }
    }
    return { pairs: out, keys: keyOf };
  });
  const result: ResolveResult = { asked: 0, recorded: 0, failed: false };
  for (let i = 0; i < pairs.length; i += PAIRS_PER_REQUEST) {
    const slice = pairs.slice(i, i + PAIRS_PER_REQUEST);
    result.asked += slice.length;
    const answer = await ask(settings, { protocol: RESOLVER_PROTOCOL, subject, pairs: slice });
    if (!answer) {
      result.failed = true;
      break;
    }
    const asked = new Set(slice.map((p) => `${p.a.memory_id}\u0000${p.b.memory_id}`));
    for (const a of answer.answers) {
      if (a.same === null) continue;
      // Only pairs it was asked about: a resolver names no memory of its own choosing.
      if (!asked.has(`${a.a}\u0000${a.b}`) && !asked.has(`${a.b}\u0000${a.a}`)) continue;
      const ka = keys.get(a.a);
      const kb = keys.get(a.b);
      if (!ka || !kb) continue;
      try {
        await linkMemories(
          pool,
          // The one writer of the reserved source: the resolver's key, for this run only.
          { ...principal, sources: [...(principal.sources ?? []), RESOLVER_SOURCE] },
          { memories: [a.a, a.b], same: a.same, idempotency_key: resolverKey(ka, kb), ...(a.reason ? { reason: a.reason } : {}) },
          { source: RESOLVER_SOURCE },
        );
        result.recorded += 1;
      } catch (err) {
        log().warn({ event: 'resolver_answer_refused', subject: subjectRef(principal.workspace_id, subject), err }, 'a resolver answer was not recorded');
      }
    }
  }
  return result;
}
