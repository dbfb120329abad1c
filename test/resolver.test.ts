import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, loadConfig, type Principal, type ResolverRequest, type Runtime } from '@canon/runtime';
import { RESOLVER_PROTOCOL, resolverKey } from '@canon/runtime/internals';
import { CANDIDATES_SHOWN, factKeyString } from '@canon/core';
import { createTestDatabase, createTestRuntime, type TestDatabase } from '@canon/testing';

// A small local resolver, a real HTTP server: it says "one fact" for every pair it is asked about
// unless told to fail or to stall. Canon records its answers and never asks twice.
let mode: 'answer' | 'abstain' | 'fail' | 'stall' | 'garbage' = 'answer';
const requests: ResolverRequest[] = [];
const resolver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const parsed = JSON.parse(body) as ResolverRequest;
    requests.push(parsed);
    if (mode === 'fail') return res.writeHead(500).end('down');
    if (mode === 'stall') return setTimeout(() => res.writeHead(200).end('{"answers":[]}'), 3000);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (mode === 'garbage') return res.end('{"answers": "yes"}');
    if (mode === 'abstain') return res.end(JSON.stringify({ answers: parsed.pairs.map((p) => ({ a: p.a.memory_id, b: p.b.memory_id, same: null })) }));
    res.end(JSON.stringify({ answers: parsed.pairs.map((p) => ({ a: p.a.memory_id, b: p.b.memory_id, same: true, reason: 'the same schedule, reworded' })) }));
  });
});

let db: TestDatabase;
let runtime: Runtime;
let owner: Principal;
let writer: Principal;

beforeAll(async () => {
  await new Promise<void>((resolve) => resolver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(resolver.address() as AddressInfo).port}/resolve`;
  db = await createTestDatabase();
  const setup = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false });
  const resolverKey = (await setup.createKey({ workspace: 'default', role: 'member', label: 'resolver' })).key;
  const ownerKey = (await setup.createKey({ workspace: 'default', role: 'owner' })).key;
  // The statements a resolver links are a member's: a link is in force only from a writer standing
  // as high as both keys' claims, and the resolver's key is a member's.
  const writerKey = (await setup.createKey({ workspace: 'default', role: 'member', user: 'mia' })).key;
  await setup.close();
  runtime = await createTestRuntime(
    loadConfig(
      { CANON_RESOLVER_URL: url, CANON_RESOLVER_KEY: resolverKey, CANON_RESOLVER_TIMEOUT_MS: '500', CANON_COMPILE_DEBOUNCE_SECONDS: '0', CANON_RESOLVER_HOSTS: '127.0.0.1' },
      { databaseUrl: db.url },
    ),
    { queue: true },
  );
  owner = await runtime.authenticate(ownerKey);
  writer = await runtime.authenticate(writerKey);
});
afterAll(async () => {
  await runtime.close();
  await db.drop();
  await new Promise((r) => resolver.close(r));
  await new Promise((r) => teamResolver.close(r));
});

// A second workspace's own resolver: another server, so whom Canon asked is plain.
const teamRequests: ResolverRequest[] = [];
const teamResolver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const parsed = JSON.parse(body) as ResolverRequest;
    teamRequests.push(parsed);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ answers: parsed.pairs.map((p) => ({ a: p.a.memory_id, b: p.b.memory_id, same: true, reason: 'the team resolver says so' })) }));
  });
});

const say = (subject: string, key: string, text: string, at: string) =>
  runtime.ingest(writer, [{ idempotency_key: key, subject, occurred_at: at, body: { text } }], { compile: 'wait' });

describe('a resolver proposes links, recorded in the log and replayed', () => {
  it('asks about the candidate pair, records its answer as a link by its key, and never asks again', async () => {
    const subject = 'service:resolved';
    await say(subject, 'r-1', 'The staging deploy runs on Tuesday.', '2026-11-01T10:00:00Z');
    await say(subject, 'r-2', 'Staging deploys now happen on Thursday.', '2026-11-05T10:00:00Z');
    requests.length = 0;
    const out = await runtime.resolveCandidates(subject);
    expect(out).toEqual({ asked: 1, recorded: 1, failed: false });
    expect(requests[0]).toMatchObject({ protocol: RESOLVER_PROTOCOL, subject });
    expect(requests[0]!.pairs[0]!.a.values.concat(requests[0]!.pairs[0]!.b.values).sort()).toEqual(['Thursday', 'Tuesday']);

    const { memories } = await runtime.memories(owner, subject);
    expect(memories).toHaveLength(1);
    expect(memories[0]!.current.map((v) => v.value)).toEqual(['Thursday']);
    const log = await runtime.subjectEpisodes(owner, subject);
    expect(log.filter((e) => e.kind === 'link').map((e) => [e.source, e.actor.role])).toEqual([['resolver', 'member']]);

    // Answered once: asking again asks nothing; a rebuild replays the answer from the log.
    expect(await runtime.resolveCandidates(subject)).toEqual({ asked: 0, recorded: 0, failed: false });
    const before = requests.length;
    const rebuilt = await runtime.rebuild(owner, subject);
    expect(requests.length).toBe(before);
    expect((await runtime.memories(owner, subject)).memories).toEqual(memories);
    expect((await runtime.verify(owner, subject)).ok).toBe(true);
    expect(rebuilt.state_hash).toBe((await runtime.verify(owner, subject)).first.state_hash);
  });

  it('is the only writer of its source: no other key takes the key of its answer first', async () => {
    const subject = 'service:forged';
    await say(subject, 'f-1', 'The staging deploy runs on Tuesday.', '2026-11-01T10:00:00Z');
    await say(subject, 'f-2', 'Staging deploys now happen on Thursday.', '2026-11-05T10:00:00Z');
    const { memories } = await runtime.memories(owner, subject);
    const [ka, kb] = (await Promise.all(memories.map(async (m) => factKeyString((await runtime.memory(owner, m.id)).timeline.fact_key)))).sort() as [string, string];
    const agent = await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: 'agent' })).key);
    for (const writer of [agent, owner]) {
      const forged = { source: 'resolver', kind: 'link', idempotency_key: resolverKey(ka, kb), subject, body: { text: 'nothing' } };
      await expect(runtime.ingest(writer, [forged])).rejects.toThrow(/only it writes them/);
    }
    requests.length = 0;
    expect(await runtime.resolveCandidates(subject)).toEqual({ asked: 1, recorded: 1, failed: false });
    expect((await runtime.memories(owner, subject)).memories).toHaveLength(1);
  });

  it('changes nothing and blocks nothing when the resolver fails, stalls or answers nonsense', async () => {
    const subject = 'service:unresolved';
    await say(subject, 'u-1', 'The staging deploy runs on Tuesday.', '2026-11-01T10:00:00Z');
    await say(subject, 'u-2', 'Staging deploys now happen on Thursday.', '2026-11-05T10:00:00Z');
    for (const m of ['fail', 'stall', 'garbage'] as const) {
      mode = m;
      const t0 = performance.now();
      expect(await runtime.resolveCandidates(subject)).toEqual({ asked: 1, recorded: 0, failed: true });
      expect(performance.now() - t0).toBeLessThan(2500);
      const { memories } = await runtime.memories(owner, subject);
      expect(memories).toHaveLength(2);
      expect(memories.every((x) => x.candidates.length === 1)).toBe(true);
    }
    mode = 'answer';
  });

  it('runs after a compile job: ingest, the queued compile, then the resolver', async () => {
    const subject = 'service:queued';
    await runtime.ingest(writer, [
      { idempotency_key: 'q-1', subject, occurred_at: '2026-11-01T10:00:00Z', body: { text: 'The staging deploy runs on Tuesday.' } },
      { idempotency_key: 'q-2', subject, occurred_at: '2026-11-05T10:00:00Z', body: { text: 'Staging deploys now happen on Thursday.' } },
    ]);
    const deadline = Date.now() + 20_000;
    let count = -1;
    while (Date.now() < deadline) {
      count = (await runtime.memories(owner, subject)).memories.length;
      if (count === 1) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(count).toBe(1);
  });
});

describe('a resolver over a subject of many keys worded alike', () => {
  it('is asked about each pair a reader is shown (a memory shows its first CANDIDATES_SHOWN), once each', async () => {
    const subject = 'service:alike';
    const words = ['the', 'nightly', 'export', 'job', 'runs', 'on'];
    // One sentence capitalized thirty ways: thirty keys, each a candidate of every other.
    const episodes = Array.from({ length: 30 }, (_, i) => ({
      idempotency_key: `alike-${i}`,
      subject,
      occurred_at: '2026-11-01T10:00:00Z',
      body: { text: `${words.map((w, k) => ((i >> k) & 1 ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ')} Tuesday.` },
    }));
    await runtime.ingest(owner, episodes, { compile: 'wait' });
    const { rows } = await runtime.pool.query<{ id: string; candidates: Array<{ memory_id: string }> }>('SELECT id, candidates FROM memories WHERE subject = $1', [subject]);
    expect(rows).toHaveLength(30);
    const shown = new Set(rows.flatMap((r) => r.candidates.slice(0, CANDIDATES_SHOWN).map((c) => [r.id, c.memory_id].sort().join(' '))));
    // Each keeps its best CANDIDATES_SHOWN of its 29, the ones a reader is shown.
    expect(rows.every((r) => r.candidates.length === CANDIDATES_SHOWN)).toBe(true);
    expect(shown.size).toBeLessThan((30 * 29) / 2);
    mode = 'abstain';
    requests.length = 0;
    try {
      const out = await runtime.resolveCandidates(subject);
      expect(out).toEqual({ asked: shown.size, recorded: 0, failed: false });
    } finally {
      mode = 'answer';
    }
    const asked = requests.flatMap((r) => r.pairs.map((p) => [p.a.memory_id, p.b.memory_id].sort().join(' ')));
    expect(new Set(asked).size).toBe(asked.length);
    expect(new Set(asked)).toEqual(shown);
  });
});

describe("a workspace's own resolver", () => {
  it('is stated in its policies by an owner, checked against the allowed hosts and its key, and asked instead of the server’s', async () => {
    await new Promise<void>((resolve) => teamResolver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(teamResolver.address() as AddressInfo).port}/resolve`;
    const teamOwner = await runtime.authenticate((await runtime.createKey({ workspace: 'team', role: 'owner' })).key);
    const teamMaintainer = await runtime.authenticate((await runtime.createKey({ workspace: 'team', role: 'maintainer' })).key);
    const bot = await runtime.createKey({ workspace: 'team', role: 'agent', user: 'resolver-bot' });
    const ownerKeyId = teamOwner.key_id;
    const elsewhere = (await runtime.createKey({ workspace: 'default', role: 'agent' })).record.id;

    // Refused, and nothing saved: a host the operator did not list, a key of another workspace,
    // a key above the caller's role.
    await expect(runtime.setPolicies(teamOwner, { resolver: { url: 'http://localhost:9/resolve', key_id: bot.record.id } })).rejects.toThrow(/not a resolver host/);
    await expect(runtime.setPolicies(teamOwner, { resolver: { url: 'file:///etc/passwd', key_id: bot.record.id } })).rejects.toThrow(/resolver\.url/);
    await expect(runtime.setPolicies(teamOwner, { resolver: { url, key_id: elsewhere } })).rejects.toThrow(/no active API key/);
    await expect(runtime.setPolicies(teamMaintainer, { resolver: { url, key_id: ownerKeyId } })).rejects.toThrow(/standing of a owner key/);
    // A maintainer naming a member's key would have the resolver's links logged as that member's.
    const carol = await runtime.createKey({ workspace: 'team', role: 'member', user: 'carol' });
    await expect(runtime.setPolicies(teamMaintainer, { resolver: { url, key_id: carol.record.id } })).rejects.toThrow(/logged as that user/);
    expect((await runtime.policies(teamOwner)).own).toBeNull();

    const set = await runtime.setPolicies(teamOwner, { resolver: { url, key_id: bot.record.id, timeout_ms: 1000 } });
    // Who is asked is not compiled state: the fingerprint stays, nothing is rebuilt.
    expect(set).toMatchObject({ changed: false, own: { resolver: { url, key_id: bot.record.id } }, rebuild: { mode: 'none' } });

    const subject = 'service:team';
    await runtime.ingest(
      teamOwner,
      [
        { idempotency_key: 't-1', subject, occurred_at: '2026-11-01T10:00:00Z', body: { text: 'The staging deploy runs on Tuesday.' } },
        { idempotency_key: 't-2', subject, occurred_at: '2026-11-05T10:00:00Z', body: { text: 'Staging deploys now happen on Thursday.' } },
      ],
      { compile: 'wait' },
    );
    const before = requests.length;
    expect(await runtime.resolveCandidates(subject, 'team')).toEqual({ asked: 1, recorded: 1, failed: false });
    expect(requests.length).toBe(before);
    expect(teamRequests.map((r) => r.subject)).toEqual([subject]);
    // The bot's key is an agent's: its answer is a proposal on the pair, not a merge.
    const { memories } = await runtime.memories(teamOwner, subject);
    expect(memories).toHaveLength(2);
    expect(memories.every((m) => m.candidates[0]?.proposed?.same === true)).toBe(true);
    const links = (await runtime.subjectEpisodes(teamOwner, subject)).filter((e) => e.kind === 'link');
    expect(links.map((e) => [e.source, e.actor.role, e.actor.user])).toEqual([['resolver', 'agent', 'resolver-bot']]);

    // Revoking its key stops it; the server's resolver belongs to another workspace and is not asked either.
    await runtime.revokeKey(bot.record.id);
    await runtime.ingest(teamOwner, [{ idempotency_key: 't-3', subject, occurred_at: '2026-11-06T10:00:00Z', body: { text: 'We deploy staging every Thursday.' } }], { compile: 'wait' });
    expect(await runtime.resolveCandidates(subject, 'team')).toBeNull();
    expect(teamRequests).toHaveLength(1);
    expect(requests.length).toBe(before);
  });
});
