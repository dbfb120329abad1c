import type { CaseActor, DecisionCase, Write } from './cases.js';
import { keyName, valueText, writes, type DecisionSystem, type KeyAnswer } from './systems.js';

/** How the evaluation reaches Canon: its HTTP API, and a way to make keys that name a user. */
export interface DecisionAccess {
  request(path: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response>;
  createKey(input: { workspace: string; role: CaseActor['role']; user?: string; label?: string }): Promise<string>;
}

interface MemoryJson {
  predicate: string;
  qualifiers: Record<string, string>;
  status: string;
  current: Array<{ value: unknown }>;
  conflict: Array<{ value: unknown }>;
}

/** The key a write comes from: the case's label, or one key per (role, user). */
const keyLabel = (a: CaseActor) => a.key ?? `${a.role}/${a.user ?? '-'}`;

/** The instant the case is read at: just after its latest write. */
function readAt(c: DecisionCase): string {
  const last = Math.max(...writes(c).map((w) => Date.parse(w.occurred_at)));
  return new Date(last + 1000).toISOString();
}

function episodeOf(c: DecisionCase, w: Write, key: string) {
  return {
    source: 'eval',
    idempotency_key: key,
    subject: c.subject,
    occurred_at: w.occurred_at,
    body: {
      text: w.text,
      claims: w.claims.map((s) => ({
        predicate: s.predicate,
        value: s.value,
        ...(s.qualifiers ? { qualifiers: s.qualifiers } : {}),
        ...(s.correction !== undefined ? { correction: s.correction } : {}),
        ...(s.effective_from ? { effective_from: s.effective_from } : {}),
      })),
    },
  };
}

/**
 * Canon through its HTTP API, one workspace per case: a key per (role, user) of the case (or per
 * labelled key), the case's policy through PUT /v1/policies, each write a POST /v1/episodes,
 * one compile, then GET /v1/subjects/{s}/memories?as_of= just after the last write.
 */
export function canonDecisions(access: DecisionAccess, run: string): DecisionSystem {
  return {
    name: 'Canon',
    description: 'the HTTP API: a key per author and role, POST /v1/episodes, POST /v1/compile, GET /v1/subjects/{s}/memories?as_of=',
    async decide(c: DecisionCase): Promise<KeyAnswer[]> {
      const workspace = `d-${run}-${c.id}`.toLowerCase();
      const keys = new Map<string, string>();
      const keyOf = async (a: CaseActor) => {
        const label = keyLabel(a);
        let k = keys.get(label);
        if (!k) {
          k = await access.createKey({ workspace, role: a.role, ...(a.user ? { user: a.user } : {}), label });
          keys.set(label, k);
        }
        return k;
      };
      const owner: CaseActor = { role: 'owner', user: null, key: '(evaluator)' };
      const call = async (method: string, path: string, actor: CaseActor, json?: unknown) => {
        const res = await access.request(path, {
          method,
          headers: { authorization: `Bearer ${await keyOf(actor)}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        });
        const body = (await res.json()) as Record<string, unknown>;
        if (res.status !== 200) throw new Error(`${c.id}: ${method} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
        return body;
      };
      if (c.policy) {
        const predicates = new Set(writes(c).flatMap((w) => w.claims.map((s) => s.predicate)));
        const policy = { cardinality: 'one', mode: c.policy.mode, min_role: c.policy.min_role ?? 'reader' };
        await call('PUT', '/v1/policies', owner, { predicates: Object.fromEntries([...predicates].map((p) => [p, policy])) });
      }
      const all = writes(c);
      for (const [i, w] of all.entries()) {
        await call('POST', '/v1/episodes', w.actor, episodeOf(c, w, i === all.length - 1 ? 'episode' : `prior-${i}`));
      }
      await call('POST', '/v1/compile', owner, { subject: c.subject });
      const body = await call('GET', `/v1/subjects/${encodeURIComponent(c.subject)}/memories?as_of=${encodeURIComponent(readAt(c))}`, owner);
      const memories = body['memories'] as MemoryJson[];
      const byKey = new Map(memories.map((m) => [keyName(m), m] as const));
      return c.after.map((h) => {
        const m = byKey.get(keyName(h));
        if (!m) return { values: [], flagged: false };
        const conflicted = m.status === 'conflicted';
        return { values: (conflicted ? m.conflict : m.current).map((v) => valueText(v.value)), flagged: conflicted };
      });
    },
  };
}
