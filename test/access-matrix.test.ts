import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '@canon/api';
import { createRuntime, loadConfig } from '@canon/runtime';
import { atLeast, type Role } from '@canon/core';
import { createTestRuntime, startTestCanon, type TestCanon } from '@canon/testing';

// Nothing leaks across users or workspaces (issue 14). Every route of the OpenAPI document — plus
// the routes outside it (POST /v1/episodes, the inspector) — is called by a key of every role in
// two workspaces, against its own data, another user's personal data and another workspace's
// data. Each party's data holds a unique marker; no response may hold a marker its caller may
// not see, and no call may fail with a 5xx.

const M = {
  alice: 'mkalicecontent7q', // alice's personal content in `default`
  aliceSubject: 'mkalicesubject3w', // in the name of alice's personal subject
  own: 'mkdefaultcontent5e', // workspace content of `default`
  other: 'mkothercontent2r', // workspace content of `other`
  otherSubject: 'mkothersubject9t',
  otherBob: 'mkotherbobcontent4y', // the personal content of `other`'s bob (a user named like default's bob)
} as const;

interface Caller {
  name: string;
  workspace: 'default' | 'other';
  role: Role;
  user?: string;
  key: string;
  sources?: string[];
}

interface Target {
  name: 'own' | 'alice' | 'other';
  subject: string;
  memory: string;
  conflict: string;
  job: string;
  user: string;
  /** An idempotency key of one of the target's episodes. */
  key: string;
}

let canon: TestCanon;
const callers: Caller[] = [];
const targets = {} as Record<Target['name'], Target>;
let routes: Array<{ method: string; path: string; query: string[] }> = [];

/** Markers a caller may not see anywhere in an answer. */
function forbidden(c: Caller): string[] {
  const out: string[] = [];
  if (c.user !== 'alice' || c.workspace !== 'default') out.push(M.alice, M.aliceSubject);
  if (c.workspace === 'default') out.push(M.other, M.otherSubject, M.otherBob);
  else out.push(M.own);
  if (!(c.workspace === 'other' && c.user === 'bob')) out.push(M.otherBob);
  return out;
}

const ep = (key: string, subject: string, predicate: string, value: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject,
  kind: 'claim',
  body: { claims: [{ predicate, value }] },
  ...extra,
});

async function json(res: Response): Promise<any> {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
}

beforeAll(async () => {
  canon = await startTestCanon({}, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
  const make = async (name: string, workspace: 'default' | 'other', role: Role, user?: string, sources?: string[]) => {
    const created = await canon.runtime.createKey({ workspace, role, user, sources });
    const c: Caller = { name, workspace, role, user, key: created.key, sources };
    callers.push(c);
    return c;
  };
  const owner = await make('owner', 'default', 'owner', 'olga');
  await make('maintainer', 'default', 'maintainer', 'maya');
  const bob = await make('member bob', 'default', 'member', 'bob');
  const alice = await make('member alice', 'default', 'member', 'alice');
  await make('agent', 'default', 'agent', 'agent-7');
  await make('reader', 'default', 'reader', 'rita');
  await make('connector', 'default', 'connector', undefined, ['github']);
  const otto = await make('other owner', 'other', 'owner', 'otto');
  const otherBob = await make('other member bob', 'other', 'member', 'bob');
  const carol = (await canon.runtime.createKey({ workspace: 'default', role: 'member', user: 'carol' })).key;
  const olive = (await canon.runtime.createKey({ workspace: 'other', role: 'member', user: 'olive' })).key;
  const oscar = (await canon.runtime.createKey({ workspace: 'other', role: 'member', user: 'oscar' })).key;

  const post = (key: string, body: unknown) => canon.request('/v1/episodes?compile=wait', { key, json: body }).then(json);
  // default: a workspace subject with a conflict, and alice's personal data (its own subject, and
  // personal memories inside the shared subject).
  await post(bob.key, ep('d-1', 'service:shared', 'deploy day', `${M.own} Tuesday`));
  await post(carol, ep('d-2', 'service:shared', 'deploy day', `${M.own} Friday`));
  await post(alice.key, ep('a-1', `note:${M.aliceSubject}`, 'favourite editor', `${M.alice} helix`, { scope: 'personal' }));
  await post(alice.key, ep('a-2', `note:${M.aliceSubject}`, 'favourite editor', `${M.alice} kakoune`, { scope: 'personal', idempotency_key: 'a-2' }));
  await post(alice.key, ep('a-3', 'service:shared', 'pager', `${M.alice} pager`, { scope: 'personal' }));
  // other: a workspace subject with a conflict, and its bob's personal data.
  await post(oscar, ep('o-1', `service:${M.otherSubject}`, 'region', `${M.other} eu`));
  await post(olive, ep('o-2', `service:${M.otherSubject}`, 'region', `${M.other} us`));
  await post(otherBob.key, ep('o-3', `service:${M.otherSubject}`, 'bob notes', `${M.otherBob} note`, { scope: 'personal' }));

  const memoriesOf = async (key: string, subject: string) =>
    (await json(await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key }))).memories as Array<{ id: string; status: string; scope?: string }>;
  const conflictOf = async (key: string, subject: string) =>
    ((await json(await canon.request(`/v1/conflicts?subject=${encodeURIComponent(subject)}`, { key }))).conflicts as Array<{ memory_id: string }>)[0]!;
  const jobOf = async (key: string, subject: string) => (await json(await canon.request('/v1/compile', { key, json: { subject, async: true } }))).job_id as string;
  const idOf = (c: { memory_id: string }) => c.memory_id;

  const ownMemories = await memoriesOf(owner.key, 'service:shared');
  const aliceMemories = await memoriesOf(alice.key, `note:${M.aliceSubject}`);
  const otherMemories = await memoriesOf(otto.key, `service:${M.otherSubject}`);
  targets.own = { name: 'own', subject: 'service:shared', memory: ownMemories[0]!.id, conflict: idOf(await conflictOf(owner.key, 'service:shared')), job: await jobOf(owner.key, 'service:shared'), user: 'bob', key: 'd-1' };
  targets.alice = { name: 'alice', subject: `note:${M.aliceSubject}`, memory: aliceMemories[0]!.id, conflict: aliceMemories[0]!.id, job: await jobOf(alice.key, `note:${M.aliceSubject}`), user: 'alice', key: 'a-1' };
  targets.other = { name: 'other', subject: `service:${M.otherSubject}`, memory: otherMemories[0]!.id, conflict: idOf(await conflictOf(otto.key, `service:${M.otherSubject}`)), job: await jobOf(otto.key, `service:${M.otherSubject}`), user: 'bob', key: 'o-1' };

  const doc = await json(await canon.app.request('/openapi.json'));
  for (const [path, ops] of Object.entries<Record<string, { parameters?: Array<{ in: string; name: string }> }>>(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      routes.push({ method: method.toUpperCase(), path, query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name) });
    }
  }
  // Routes outside the document: the log's writer and the inspector's pages.
  routes.push({ method: 'POST', path: '/v1/episodes', query: [] });
  routes.push({ method: 'GET', path: '/inspect/', query: [] });
  routes.push({ method: 'GET', path: '/inspect/subjects/{subject}', query: [] });
  routes.push({ method: 'GET', path: '/inspect/conflicts', query: [] });
  // Erasures last: they remove what the other calls look for.
  const destructive = (r: { method: string; path: string }) => r.method === 'DELETE' || r.path === '/v1/erasures';
  routes = [...routes.filter((r) => !destructive(r)), ...routes.filter(destructive)];
}, 120_000);
afterAll(() => canon?.close());

let probe = 0;
/** One call of a route by a caller, aimed at a target's subject, memory, conflict, job or user. */
function requestFor(route: { method: string; path: string; query: string[] }, t: Target): { path: string; body?: unknown; headers: Record<string, string> } {
  const enc = encodeURIComponent;
  const path = route.path
    .replace('{subject}', enc(t.subject))
    .replace('{job_id}', t.job)
    .replace('{webhook_id}', t.job)
    .replace('{id}', route.path.endsWith('/resolution') ? enc(t.conflict) : enc(t.memory));
  const q = new URLSearchParams();
  for (const name of route.query) {
    if (name === 'subject') q.set('subject', t.subject);
    if (name === 'q') q.set('q', t.name === 'alice' ? M.alice : t.name === 'other' ? M.other : M.own);
    if (name === 'include_history') q.set('include_history', 'true');
  }
  const url = q.size > 0 ? `${path}?${q}` : path;
  const headers: Record<string, string> = route.path.includes('/memories/{id}') ? { 'if-match': '"x"' } : {};
  if (route.method === 'GET' || route.method === 'DELETE') return { path: url, headers };
  probe += 1;
  const bodies: Record<string, unknown> = {
    // The target's own idempotency key, on a subject of the caller's: the key is taken (or not)
    // without the write naming the target's subject in the caller's workspace.
    '/v1/episodes': { idempotency_key: t.key, subject: `probe:${probe}`, body: { text: 'probe' } },
    '/v1/compile': { subject: t.subject },
    '/v1/rebuild': { subject: t.subject },
    '/v1/verify': { subject: t.subject },
    '/v1/context': { subject: t.subject, task: 'what editor', max_tokens: 500 },
    '/v1/erasures': { user: t.user },
    '/v1/schedule': { cron: '0 4 * * *', time_zone: 'UTC' },
    '/v1/policies': {},
    '/v1/memories/{id}/proposals': { expected_revision: 1, idempotency_key: `probe-${probe}`, value: 'probe' },
    '/v1/memories/{id}': { idempotency_key: `probe-${probe}`, value: 'probe' },
    '/v1/memories/{id}/resolution': { value: 'probe', reason: 'probe' },
    '/v1/jobs/dead/redrive': {},
    '/v1/webhooks': { url: 'http://127.0.0.1:9/hook', subject: t.subject },
  };
  return { path: url, body: bodies[route.path] ?? {}, headers };
}

describe('the change feed as a stream', () => {
  it('streams each key only what it may see: the same changes as its JSON page', async () => {
    // The feed shows a compile once every older transaction of the cluster has ended: wait until
    // alice sees her own personal changes, so that others not seeing them means they may not.
    const alice = callers.find((c) => c.user === 'alice')!;
    for (let i = 0; i < 1500 && !(await (await canon.request('/v1/changes?limit=1000', { key: alice.key })).text()).includes(M.alice); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(await (await canon.request('/v1/changes?limit=1000', { key: alice.key })).text()).toContain(M.alice);
    for (const caller of callers) {
      const page = (await json(await canon.request('/v1/changes?limit=1000', { key: caller.key }))) as { changes: Array<{ cursor: string }> };
      const res = await canon.request('/v1/changes?limit=1000', { key: caller.key, headers: { accept: 'text/event-stream' } });
      expect(res.status, caller.name).toBe(200);
      // The backlog is what the page held (nothing compiles now): read that many events, then leave.
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while ((text.match(/^event: change$/gm) ?? []).length < page.changes.length) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      void reader.cancel();
      expect([...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1]), caller.name).toEqual(page.changes.map((c) => c.cursor));
      for (const m of forbidden(caller)) expect(text, `${caller.name} streamed ${m}`).not.toContain(m);
    }
  }, 120_000);
});

describe('access matrix', () => {
  it('covers every route of the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThanOrEqual(26);
  });

  it('answers every route, role and target without a 5xx and without a byte of data the caller may not see', async () => {
    const leaks: string[] = [];
    // An erased person's keys are revoked with their data: a caller erased by an earlier call is refused after it.
    const erased = new Set<string>();
    for (const route of routes) {
      for (const caller of callers) {
        for (const t of [targets.own, targets.alice, targets.other]) {
          const r = requestFor(route, t);
          const res = await canon.request(r.path, { method: route.method, key: caller.key, headers: r.headers, ...(r.body !== undefined ? { json: r.body } : {}) });
          const text = await res.text();
          const where = `${route.method} ${r.path} as ${caller.name} (${caller.workspace}) on ${t.name}: ${res.status}`;
          if (res.status >= 500) leaks.push(`${where} ${text.slice(0, 200)}`);
          if (res.status === 401 && !erased.has(`${caller.workspace}/${caller.user}`)) leaks.push(`${where} (the key was refused)`);
          if (route.path === '/v1/erasures' && res.status === 200) erased.add(`${caller.workspace}/${t.user}`);
          // What the request itself names is not a leak when echoed back; everything else is.
          const asked = `${r.path} ${JSON.stringify(r.body ?? '')}`;
          for (const m of forbidden(caller)) if (!asked.includes(m) && text.includes(m)) leaks.push(`${where} shows ${m}`);
          // Another user's or workspace's memory, job or conflict is not found.
          const hidden = (t.name === 'alice' && caller.user !== 'alice') || (t.name === 'other') !== (caller.workspace === 'other');
          if (hidden && route.method === 'GET' && /\{(id|job_id)\}/.test(route.path) && res.status !== 404) leaks.push(`${where} (expected 404)`);
          // Compiling, rebuilding or verifying another user's personal subject answers as a name no
          // one wrote does, byte for byte but the name: not even a 404 tells that it exists.
          if (t.name === 'alice' && caller.user !== 'alice' && caller.workspace === 'default' && caller.role !== 'reader' && ['/v1/compile', '/v1/rebuild', '/v1/verify'].includes(route.path)) {
            const unwritten = 'mk-no-one-wrote-this';
            const twin = await canon.request(r.path, { method: route.method, key: caller.key, json: { subject: unwritten } });
            const named = (s: string, name: string) => s.replaceAll(name, '<subject>');
            const expected = named(await twin.text(), unwritten);
            if (res.status !== twin.status || named(text, t.subject) !== expected) leaks.push(`${where} (expected ${twin.status} ${expected.slice(0, 200)})`);
          }
          // The caller's own reads answer (their role permitting).
          const ownTarget = (t.name === 'own' && caller.workspace === 'default') || (t.name === 'other' && caller.workspace === 'other');
          const gated = route.path.startsWith('/v1/secrets') || route.path === '/v1/export' || (route.path.startsWith('/v1/webhooks') && !atLeast(caller.role, 'maintainer'));
          if (ownTarget && route.method === 'GET' && route.path.startsWith('/v1/') && !gated && res.status >= 400) leaks.push(`${where} (expected to answer)`);
        }
      }
    }
    expect(leaks).toEqual([]);
  }, 300_000);
});

describe('the leaks of issue 14, one by one', () => {
  // Runs on a fresh canon so the erasures above do not matter.
  let fresh: TestCanon;
  beforeAll(async () => {
    fresh = await startTestCanon({ queue: false });
  });
  afterAll(() => fresh?.close());

  it('keeps alice’s personal episodes from every other key of the workspace: the log and the subject list', async () => {
    const alice = (await fresh.key('member', { user: 'alice' })).key;
    await fresh.request('/v1/episodes?compile=wait', { key: alice, json: ep('p-1', 'note:alice-only', 'editor', `${M.alice}`, { scope: 'personal' }) });
    // The log shows a row once every older transaction of the database has ended (other test
    // files run beside this one): wait until alice sees hers, so that the others seeing nothing
    // means they may not, not that nobody may yet.
    const aliceLog = async () => (await fresh.request('/v1/episodes?subject=note%3Aalice-only', { key: alice })).text();
    for (let i = 0; i < 300 && !(await aliceLog()).includes(M.alice); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(await aliceLog()).toContain(M.alice);
    for (const role of ['owner', 'maintainer', 'member', 'agent', 'reader', 'connector'] as const) {
      const key = (await fresh.key(role, { user: role === 'member' ? 'bob' : undefined })).key;
      const log = await fresh.request('/v1/episodes?subject=note%3Aalice-only', { key });
      expect(log.status, role).toBe(200);
      expect((await log.json()).episodes ?? (await Promise.resolve([])), role).toEqual([]);
      const subjects = await (await fresh.request('/v1/subjects', { key })).text();
      expect(subjects, role).not.toContain('alice-only');
    }
  });

  it('reserves connector sources for keys bound to them', async () => {
    const writer = (await fresh.key('member', { user: 'mallory' })).key;
    const refused = await fresh.request('/v1/episodes', { key: writer, json: { source: 'github', idempotency_key: 'github|o|r|issue|1', subject: 'github:o/r#1', body: { text: 'x' } } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const bound = (await fresh.runtime.createKey({ workspace: 'default', role: 'connector', sources: ['github'] })).key;
    const ok = await fresh.request('/v1/episodes', { key: bound, json: { source: 'github', idempotency_key: 'github|o|r|issue|1', subject: 'github:o/r#1', body: { text: 'x' } } });
    expect(ok.status).toBe(200);
    // Bound to github is not bound to git; unreserved sources stay open to every writer.
    expect((await fresh.request('/v1/episodes', { key: bound, json: { source: 'git', idempotency_key: 'g-1', subject: 'repo:x', body: { text: 'x' } } })).status).toBe(403);
    expect((await fresh.request('/v1/episodes', { key: writer, json: { source: 'slack', idempotency_key: 's-1', subject: 'chan:x', body: { text: 'x' } } })).status).toBe(200);
  });

  it('answers /metrics only with a key, for its workspace, unless the totals are made public', async () => {
    expect((await fresh.app.request('/metrics')).status).toBe(401);
    const busy = (await fresh.key('member', { workspace: 'busy', user: 'u' })).key;
    const quiet = (await fresh.key('member', { workspace: 'quiet', user: 'u' })).key;
    await fresh.request('/v1/episodes', { key: busy, json: { episodes: [1, 2, 3].map((i) => ep(`m-${i}`, 'metrics:s', 'p', `v${i}`)) } });
    const pending = async (key: string) => /canon_pending_episodes (\d+)/.exec(await (await fresh.request('/metrics', { key })).text())![1];
    expect(await pending(busy)).toBe('3');
    expect(await pending(quiet)).toBe('0');
    // The process's own memory, the heap apart from the resident set: how a slow leak is told
    // from V8 keeping freed space.
    const text = await (await fresh.request('/metrics', { key: quiet })).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    expect(gauge('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(gauge('nodejs_heap_size_used_bytes')).toBeLessThanOrEqual(gauge('nodejs_heap_size_total_bytes'));
    expect(gauge('process_resident_memory_bytes')).toBeGreaterThan(gauge('nodejs_heap_size_used_bytes'));
    expect(gauge('nodejs_external_memory_bytes')).toBeGreaterThan(0);
    const open = await createRuntime(loadConfig({ CANON_METRICS_PUBLIC: '1' }, { databaseUrl: fresh.db.url }), { queue: false, migrate: false });
    try {
      const res = await createApp(open).request('/metrics');
      expect(res.status).toBe(200);
      expect(await res.text()).not.toMatch(/busy|quiet|metrics:s/);
    } finally {
      await open.close();
    }
  });

  it("counts a workspace's waiting compile jobs, and only its own, through the queue's API", async () => {
    // Workers off: the jobs ingest queues stay waiting, so the counts can be read.
    const queued = await createTestRuntime(loadConfig({}, { databaseUrl: fresh.db.url }), { queue: true, workers: false, migrate: false });
    try {
      const app = createApp(queued);
      const keyOf = async (workspace: string) => (await queued.createKey({ workspace, role: 'member', user: 'u' })).key;
      const [loud, still] = [await keyOf('loud'), await keyOf('still')];
      const post = (key: string, body: unknown) =>
        app.request('/v1/episodes', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post(loud, { episodes: [ep('q-1', 'queue:a', 'p', 'v'), ep('q-2', 'queue:b', 'p', 'v')] })).status).toBe(200);
      const waiting = async (key: string) => {
        const text = await (await app.request('/metrics', { headers: { authorization: `Bearer ${key}` } })).text();
        return Number(/^canon_queue_jobs\{queue="compile",state="queued"\} (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
      };
      expect(await waiting(loud)).toBeGreaterThanOrEqual(1);
      expect(await waiting(still)).toBe(0);
    } finally {
      await queued.close();
    }
  });
});
