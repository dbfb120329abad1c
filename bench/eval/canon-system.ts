import { createHash } from 'node:crypto';
import type { Answer, MemorySystem, SystemFactory } from './system.js';
import type { FactTruth, GeneratedEpisode, Role } from './workload.js';

/** How the evaluation reaches Canon: a fetch-like call to its HTTP API, and a way to make keys. */
export interface CanonAccess {
  request(path: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response>;
  createKey(workspace: string, role: Role | 'owner', user?: string): Promise<string>;
}

interface MemoryJson {
  id: string;
  predicate: string;
  qualifiers: Record<string, string>;
  status: string;
  current: Array<{ value: unknown; conditions: string[] }>;
  conflict: Array<{ value: unknown }>;
  needs_verification: boolean;
}

/** A deterministic third of single arrivals are posted with ?compile=wait (compiled at once), the rest compile later. */
const compileNow = (key: string) => createHash('sha256').update(key).digest()[0]! % 3 === 0;

/**
 * Canon through its HTTP API: each arrival is a POST /v1/episodes with the key of the
 * episode's role (racing writers are posted concurrently, each with ?compile=wait); after the
 * last arrival one POST /v1/compile {all: true}; recall is GET /v1/subjects/{s}/memories?as_of=.
 * Each run (arrival order) is a workspace of its own.
 */
export function canonSystem(access: CanonAccess): SystemFactory {
  const factory: SystemFactory = {
    name: 'Canon',
    description: 'the HTTP API: POST /v1/episodes (a key per role), POST /v1/compile, GET /v1/subjects/{s}/memories?as_of=',
    async create(run: string): Promise<MemorySystem> {
      const workspace = `eval-${run}`;
      // One author per (role, source): an agent writing through the API and another through MCP
      // are two people, so their disagreement is a dispute and not an update.
      const keys = new Map<string, string>();
      const keyOf = async (role: Role | 'owner', source?: string) => {
        const user = source === undefined ? undefined : `${role}-${source}`;
        const label = user ?? role;
        let k = keys.get(label);
        if (!k) {
          k = await access.createKey(workspace, role, user);
          keys.set(label, k);
        }
        return k;
      };
      const call = async (method: string, path: string, role: Role | 'owner', json?: unknown, source?: string) => {
        const res = await access.request(path, {
          method,
          headers: { authorization: `Bearer ${await keyOf(role, source)}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        });
        const body = await res.json();
        if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
        return body as Record<string, unknown>;
      };
      const post = async (e: GeneratedEpisode, wait: boolean) => {
        const body = await call('POST', `/v1/episodes${wait ? '?compile=wait' : ''}`, e.role, e.episode, e.episode.source);
        const items = (body['results'] ?? body['items'] ?? []) as Array<{ status?: string }>;
        for (const item of items) {
          if (item.status && item.status !== 'created' && item.status !== 'duplicate') throw new Error(`ingest answered ${item.status}`);
        }
      };
      let hashes = new Map<string, string>();
      const cache = new Map<string, MemoryJson[]>();
      const merged = new Set<string>();
      return {
        name: factory.name,
        async arrive(episodes) {
          if (episodes.length === 1) await post(episodes[0]!, compileNow(episodes[0]!.episode.idempotency_key));
          else await Promise.all(episodes.map((e) => post(e, true)));
        },
        async settle() {
          const many = (await call('POST', '/v1/compile', 'owner', { all: true })) as { results: Array<{ subject: string; state_hash: string }> };
          hashes = new Map(many.results.map((r) => [r.subject, r.state_hash]));
        },
        async answer(fact: FactTruth, at: string): Promise<Answer> {
          let memories = cache.get(fact.subject);
          if (!memories) {
            const body = await call('GET', `/v1/subjects/${encodeURIComponent(fact.subject)}/memories?as_of=${encodeURIComponent(at)}`, 'owner');
            memories = body['memories'] as MemoryJson[];
            cache.set(fact.subject, memories);
          }
          const same = (q: Record<string, string>) => JSON.stringify(Object.entries(q).sort()) === JSON.stringify(Object.entries(fact.qualifiers).sort());
          const m = memories.find((x) => x.predicate === fact.predicate && same(x.qualifiers));
          if (!m) {
            // The fact has no memory of its own: if its subject has another one it was collapsed into it.
            if (memories.length > 0) merged.add(fact.id);
            return { values: [], flagged: false };
          }
          const flagged = m.status === 'conflicted' || m.needs_verification;
          const values =
            m.status === 'conflicted'
              ? m.conflict.map((s) => ({ value: String(s.value), conditions: [], fact: fact.id }))
              : m.current.map((v) => ({ value: String(v.value), conditions: v.conditions, fact: fact.id }));
          return { values, flagged };
        },
        async stateDigest() {
          const lines = [...hashes.entries()].map(([s, h]) => `${s}=${h}`).sort();
          return createHash('sha256').update(lines.join('\n')).digest('hex');
        },
        mergedAway: () => merged,
        async close() {},
      };
    },
  };
  return factory;
}
