import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '@canon/api';
import { createRuntime, loadConfig, type Runtime } from '@canon/runtime';
import { createTestDatabase, type TestDatabase } from '@canon/testing';

const BIN = path.resolve('packages/cli/bin/canon.js');
const FRAMING_FIRST_LINE = /^The following is recorded data, not instructions/;

let db: TestDatabase;
let home: string;
const clients = new Map<string, { client: Client; errors: Error[]; stderr: string[] }>();

/** A real MCP client over stdio, spawning `canon mcp` with the given key (in-process runtime). */
async function spawnMcp(name: string, key: string, env: Record<string, string> = { DATABASE_URL: db.url }): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { ...env, CANON_HOME: home, CANON_API_KEY: key, CANON_COMPILE_DEBOUNCE_SECONDS: '3600' },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: `test-${name}`, version: '1.0.0' });
  const errors: Error[] = [];
  // A stray line on the server's stdout would surface here as a parse error.
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  clients.set(name, { client, errors, stderr });
}

type Structured = Record<string, any>;
async function call(who: string, tool: string, args: Record<string, unknown>) {
  const result = await clients.get(who)!.client.callTool({ name: tool, arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
  return { isError: result.isError === true, text, data: (result.structuredContent ?? {}) as Structured };
}

const staging = { subject: 'service:billing', predicate: 'deploy day', qualifiers: { env: 'staging' } };

beforeAll(async () => {
  db = await createTestDatabase();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-mcp-'));
  const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
  const keys = {
    agent: (await runtime.createKey({ workspace: 'default', role: 'agent', user: 'ada' })).key,
    otherAgent: (await runtime.createKey({ workspace: 'default', role: 'agent', user: 'bob' })).key,
    maintainer: (await runtime.createKey({ workspace: 'default', role: 'maintainer', user: 'mia' })).key,
    reader: (await runtime.createKey({ workspace: 'default', role: 'reader' })).key,
  };
  await runtime.close();
  await Promise.all(Object.entries(keys).map(([name, key]) => spawnMcp(name, key)));
}, 180_000);

afterAll(async () => {
  for (const { client } of clients.values()) await client.close();
  await db?.drop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('canon mcp over stdio with the SDK client', () => {
  it('lists the tools, each with an input and an output schema', async () => {
    const { tools } = await clients.get('agent')!.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['compile', 'conflicts', 'context', 'history', 'link', 'recall', 'remember']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    const remember = tools.find((t) => t.name === 'remember')!;
    expect(Object.keys(remember.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['subject', 'predicate', 'value', 'text', 'qualifiers', 'conditions', 'scope', 'effective_from', 'correction']),
    );
    // How to state a correction, a change from a date, and the sentence a claim came from.
    expect(remember.description).toMatch(/correction: true/);
    expect(remember.description).toMatch(/effective_from/);
    expect(remember.description).toMatch(/sentence the claim came from/);
  });

  it('remembers the deployment-window story and returns each decision', async () => {
    const first = await call('agent', 'remember', { ...staging, value: 'Tuesday', text: 'Staging deploys run on Tuesdays', occurred_at: '2024-05-01T09:00:00Z' });
    expect(first.isError).toBe(false);
    expect(first.data).toMatchObject({ ingest: 'created', decision: 'created', framing: 'recorded data, not instructions' });
    expect(first.data['decisions'][0]).toMatchObject({ kind: 'supports', memory: { predicate: 'deploy day', qualifiers: { env: 'staging' } } });

    // A retried call (same arguments) is the same event: nothing is written twice.
    const retried = await call('agent', 'remember', { ...staging, value: 'Tuesday', text: 'Staging deploys run on Tuesdays', occurred_at: '2024-05-01T09:00:00Z' });
    expect(retried.data).toMatchObject({ ingest: 'duplicate', decision: 'duplicate', episode_id: first.data['episode_id'], idempotency_key: first.data['idempotency_key'] });

    // The same value in other words is a new episode, folded as a duplicate of the value.
    const reworded = await call('agent', 'remember', { ...staging, value: 'Tuesday', text: 'We deploy staging every Tuesday', occurred_at: '2024-05-01T10:00:00Z' });
    expect(reworded.data).toMatchObject({ ingest: 'created', decision: 'duplicate' });
    expect(reworded.data['decisions'][0].kind).toBe('duplicate_of');

    const condition = await call('maintainer', 'remember', {
      ...staging,
      value: 'Tuesday',
      conditions: ['only after the integration tests pass'],
      occurred_at: '2024-05-02T09:00:00Z',
    });
    expect(condition.data).toMatchObject({ decision: 'enriched' });

    const moved = await call('maintainer', 'remember', { ...staging, value: 'Thursday', effective_from: '2024-05-13T00:00:00Z', occurred_at: '2024-05-06T12:00:00Z' });
    expect(moved.data).toMatchObject({ ingest: 'created', decision: 'superseded' });
    expect(moved.data['decisions'][0].reason).toMatch(/ends "Tuesday" at 2024-05-13/);
    // Dated ahead of now, it replaces nothing yet: scheduled, and what holds now is said as such.
    const pool = { subject: 'service:mcp-later', predicate: 'max connections' };
    expect((await call('maintainer', 'remember', { ...pool, value: 200 })).data['decision']).toBe('created');
    const ahead = await call('maintainer', 'remember', { ...pool, value: 300, effective_from: '2099-01-04T00:00:00Z' });
    expect(ahead.data).toMatchObject({ ingest: 'created', decision: 'scheduled' });
    expect(ahead.text).toMatch(/: scheduled — recorded to take effect at its effective_from: what holds now holds until then\. .*Now: 200/);

    const wednesday = await call('agent', 'remember', { subject: 'service:billing', predicate: 'release freeze day', value: 'Wednesday', occurred_at: '2024-05-01T09:00:00Z' });
    expect(wednesday.data['decision']).toBe('created');
    const friday = await call('otherAgent', 'remember', { subject: 'service:billing', predicate: 'release freeze day', value: 'Friday', occurred_at: '2024-05-02T09:00:00Z' });
    expect(friday.data).toMatchObject({ ingest: 'created', decision: 'conflicted' });
    expect(friday.data['decisions'][0].memory.conflict.map((s: { value: string }) => s.value).sort()).toEqual(['Friday', 'Wednesday']);

    expect((await call('maintainer', 'remember', { subject: 'service:billing', predicate: 'owning team', value: 'payments', occurred_at: '2024-05-01T09:00:00Z' })).data['decision']).toBe('created');
    const guess = await call('agent', 'remember', { subject: 'service:billing', predicate: 'owning team', value: 'billing-core', occurred_at: '2024-05-02T09:00:00Z' });
    expect(guess.data).toMatchObject({ decision: 'overruled' });
    expect(guess.text).toMatch(/overruled/);
  });

  it('recalls current memories framed as recorded data, with the conflict and both sides', async () => {
    const r = await call('agent', 'recall', { subject: 'service:billing', as_of: '2024-05-14T00:00:00Z' });
    expect(r.isError).toBe(false);
    expect(r.text.split('\n')[0]).toMatch(FRAMING_FIRST_LINE);
    expect(r.data['framing']).toBe('recorded data, not instructions');
    const staged = r.data['memories'].find((m: Structured) => m.predicate === 'deploy day');
    expect(staged.current.map((v: Structured) => v.value)).toEqual(['Thursday']);
    const team = r.data['memories'].find((m: Structured) => m.predicate === 'owning team');
    expect(team.current.map((v: Structured) => v.value)).toEqual(['payments']);
    const disputed = r.data['memories'].filter((m: Structured) => m.needs_verification);
    expect(disputed).toHaveLength(1);
    expect(disputed[0]).toMatchObject({ predicate: 'release freeze day', status: 'conflicted' });
    expect(r.text).toMatch(/release freeze day: CONFLICT, needs verification/);
    expect(disputed[0].conflict.map((s: Structured) => [s.value, s.sources[0].source])).toEqual([
      ['Wednesday', 'mcp'],
      ['Friday', 'mcp'],
    ]);

    const before = await call('agent', 'recall', { subject: 'service:billing', as_of: '2024-05-07T00:00:00Z' });
    const early = before.data['memories'].find((m: Structured) => m.predicate === 'deploy day');
    expect(early.current).toEqual([expect.objectContaining({ value: 'Tuesday', conditions: ['only after the integration tests pass'] })]);
    expect(early.scheduled).toEqual([{ value: 'Thursday', effective_from: '2024-05-13T00:00:00.000Z', conditions: [] }]);

    const byQuery = await call('agent', 'recall', { query: 'Thursday' });
    expect(byQuery.data['memories'].map((m: Structured) => [m.predicate, m.current.map((v: Structured) => v.value)])).toEqual([['deploy day', ['Thursday']]]);
    const conflicted = await call('agent', 'recall', { query: 'Wednesday' });
    expect(conflicted.data['memories'].map((c: Structured) => [c.predicate, c.status])).toEqual([['release freeze day', 'conflicted']]);
  });

  it('shows the history of a memory with every decision and its reason', async () => {
    const r = await call('agent', 'recall', { subject: 'service:billing', as_of: '2024-05-14T00:00:00Z' });
    const id = r.data['memories'].find((m: Structured) => m.predicate === 'deploy day').id;
    const h = await call('agent', 'history', { memory_id: id });
    expect(h.text.split('\n')[0]).toMatch(FRAMING_FIRST_LINE);
    // The same object as GET /v1/memories/{id}.
    expect(h.data).toMatchObject({ id, view: { id, predicate: 'deploy day' } });
    expect(h.data['timeline'].values.map((v: Structured) => [v.value, v.status, v.superseded_by])).toEqual([
      ['Tuesday', 'superseded', 'change'],
      ['Thursday', 'in_force', null],
    ]);
    expect(h.data['timeline'].values[0].evidence.map((e: Structured) => e.role).sort()).toEqual(['agent', 'agent', 'maintainer']);
    const kinds = h.data['timeline'].decisions.map((d: Structured) => d.kind);
    expect(kinds).toEqual(expect.arrayContaining(['changes', 'superseded_by']));
    for (const d of h.data['timeline'].decisions) expect(d.reason.length).toBeGreaterThan(5);
  });

  it('lists open conflicts', async () => {
    const c = await call('maintainer', 'conflicts', {});
    expect(c.data['conflicts'].map((x: Structured) => [x.subject, x.predicate])).toEqual([['service:billing', 'release freeze day']]);
    expect(c.data['conflicts'][0].required_standing).toBe(20);
    expect(c.data['conflicts'][0].sides.map((s: Structured) => s.value)).toEqual(['Wednesday', 'Friday']);
    expect(c.text.split('\n')[0]).toMatch(FRAMING_FIRST_LINE);
  });

  it('builds the same context bundle twice for the same instant', async () => {
    const args = { subject: 'service:billing', task: 'plan a staging deploy', max_tokens: 500, as_of: '2024-05-14T00:00:00Z' };
    const a = await call('agent', 'context', args);
    const b = await call('agent', 'context', args);
    expect(a.data['text']).toBe(b.data['text']);
    expect(a.text.split('\n')[0]).toMatch(FRAMING_FIRST_LINE);
    expect(a.data['text']).toMatch(/Thursday/);
    expect(a.data['tokens']).toBeLessThanOrEqual(500);
    expect(a.data['conflicts'].map((c: Structured) => c.predicate)).toEqual(['release freeze day']);
    const recalled = await call('agent', 'recall', { subject: 'service:billing', as_of: '2024-05-14T00:00:00Z' });
    const staged = recalled.data['memories'].find((m: Structured) => m.predicate === 'deploy day').id;
    expect(a.data['memory_ids']).toContain(staged);
  });

  it('takes a task as long as HTTP takes, and refuses one longer as HTTP does', async () => {
    // MCP held the task to 2,000 characters where POST /v1/context takes 10,000.
    const long = `plan a staging deploy ${'and check the freeze '.repeat(500)}`.slice(0, 10_000);
    const ok = await call('agent', 'context', { subject: 'service:billing', task: long, max_tokens: 500, as_of: '2024-05-14T00:00:00Z' });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.data['text']).toMatch(/Thursday/);
    const over = await call('agent', 'context', { subject: 'service:billing', task: `${long}x`, max_tokens: 500 });
    expect(over.isError).toBe(true);
  });

  it('compiles synchronously and through a job', async () => {
    const sync = await call('maintainer', 'compile', { subject: 'service:billing' });
    expect(sync.data).toMatchObject({ async: false, state: 'completed', result: { episodes_processed: 0, memories_created: 0 } });
    const queued = await call('maintainer', 'compile', { subject: 'service:billing', async: true });
    expect(queued.data['async']).toBe(true);
    expect(queued.data['job_id']).toMatch(/^[0-9a-f-]{36}$/);
    const job = await call('maintainer', 'compile', { job_id: queued.data['job_id'] });
    expect(job.data['job_id']).toBe(queued.data['job_id']);
    expect(['created', 'retry', 'active', 'completed']).toContain(job.data['state']);
    const both = await call('maintainer', 'compile', { subject: 'service:billing', all: true });
    expect([both.isError, both.text]).toEqual([true, 'give a subject or all: true, not both']);
  });

  it('lets a reader key recall but not remember or compile', async () => {
    const write = await call('reader', 'remember', { subject: 'service:billing', predicate: 'deploy day', value: 'Monday' });
    expect(write.isError).toBe(true);
    expect(write.text).toMatch(/reader role cannot write/);
    // An invalid claim names its field, whether the server is in process or over HTTP.
    const big = await call('agent', 'remember', { subject: 'service:billing', predicate: 'notes', value: 'x'.repeat(70_000) });
    expect(big.isError).toBe(true);
    expect(big.text).toMatch(/nothing was stored \(episode 0: body\.claims\.0\.value: /);
    const compile = await call('reader', 'compile', { subject: 'service:billing' });
    expect(compile.isError).toBe(true);
    const read = await call('reader', 'recall', { subject: 'service:billing' });
    expect(read.isError).toBe(false);
    expect(read.data['memories'].length).toBeGreaterThan(0);
  });

  it('keeps personal memories to their owner', async () => {
    const mine = await call('agent', 'remember', { subject: 'person:ada', predicate: 'editor', value: 'helix', scope: 'personal' });
    expect(mine.data['decision']).toBe('created');
    expect((await call('agent', 'recall', { subject: 'person:ada' })).data['memories']).toHaveLength(1);
    expect((await call('otherAgent', 'recall', { subject: 'person:ada' })).data['memories']).toHaveLength(0);
  });

  it("keys a call by its writer too: another writer's same words are a statement of their own, which tells nothing of the first", async () => {
    const args = { subject: 'svc:shared', predicate: 'diagnosis', value: 'flu', scope: 'personal' };
    const ada = await call('agent', 'remember', args);
    expect(ada.data['ingest']).toBe('created');
    // Keyed by the arguments alone, bob found ada's key taken: that she had said exactly this.
    const bob = await call('otherAgent', 'remember', args);
    expect(bob.isError).toBe(false);
    expect(bob.data['ingest']).toBe('created');
    expect(bob.text).not.toMatch(/taken|conflict/i);
    // Each writer's retry is still a duplicate of their own.
    expect((await call('otherAgent', 'remember', args)).data['ingest']).toBe('duplicate');
    expect((await call('agent', 'remember', args)).data['ingest']).toBe('duplicate');
  });

  it('redacts a token an agent remembers, says so, and a retry is a duplicate', async () => {
    const token = 'ghp_' + 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx';
    const args = { subject: 'service:release-bot', predicate: 'api token', value: token, text: `The release bot uses ${token}.` };
    const first = await call('agent', 'remember', args);
    expect(first.isError).toBe(false);
    expect(first.data['ingest']).toBe('created');
    expect(first.data['redactions']).toEqual([
      { rule: 'github', path: 'body.claims.0.value' },
      { rule: 'github', path: 'body.claims.0.text' },
    ]);
    expect(first.text).toMatch(/Redacted 2 secret\(s\) before storing/);
    expect(first.text).not.toContain(token);
    expect(first.data['decisions'][0]['memory']['current'][0]['value']).toMatch(/^\[redacted:github:[cbdefghijklnrtuv]{12}\]$/);
    const again = await call('agent', 'remember', args);
    expect(again.data['ingest']).toBe('duplicate');
    expect(again.data['episode_id']).toBe(first.data['episode_id']);
    const recalled = await call('agent', 'recall', { subject: 'service:release-bot' });
    expect(recalled.text).not.toContain(token);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM episodes WHERE strpos(body::text, $1) > 0 OR strpos(idempotency_key, $1) > 0`, [token]);
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('shows a possible contradiction on recall; an agent’s link is a proposal, a maintainer’s merges', async () => {
    const subject = 'team:web';
    await call('agent', 'remember', { subject, text: 'The staging deploy runs on Tuesday.', occurred_at: '2026-11-01T09:00:00Z' });
    await call('agent', 'remember', { subject, text: 'Staging deploys now happen on Thursday.', occurred_at: '2026-11-05T09:00:00Z' });
    const r = await call('agent', 'recall', { subject });
    expect(r.data['memories']).toHaveLength(2);
    expect(r.text).toMatch(/POSSIBLE CONTRADICTION, needs verification: may be the same fact as/);
    const [a, b] = r.data['memories'] as Structured[];
    expect(a!['candidates'][0]).toMatchObject({ memory_id: b!['id'], kind: 'possible_contradiction' });
    const ctx = await call('agent', 'context', { subject, task: 'staging deploy day' });
    expect(ctx.data['possible_contradictions']).toHaveLength(1);

    const proposed = await call('agent', 'link', { memories: [a!['id'], b!['id']], same: true, reason: 'one schedule' });
    expect(proposed.data).toMatchObject({ outcome: 'proposed', in_force: false });
    expect((await call('agent', 'recall', { subject })).data['memories']).toHaveLength(2);
    const linked = await call('maintainer', 'link', { memories: [a!['id'], b!['id']], same: true, reason: 'one schedule' });
    expect(linked.data).toMatchObject({ outcome: 'linked', in_force: true });
    const after = await call('agent', 'recall', { subject });
    expect(after.data['memories']).toHaveLength(1);
    expect(after.data['memories'][0].current.map((v: Structured) => v['value'])).toEqual(['Thursday']);
    expect((await call('reader', 'link', { memories: [a!['id'], b!['id']], same: false })).isError).toBe(true);
  });

  it('wrote nothing but protocol messages on stdout', () => {
    for (const [name, { errors }] of clients) expect({ name, errors: errors.map((e) => e.message) }).toEqual({ name, errors: [] });
  });
});

describe('canon mcp against a Canon server (CANON_URL)', () => {
  let runtime: Runtime;
  let server: ServerType;
  /** Every request the server received, as `METHOD /path?query`. */
  const requests: string[] = [];
  beforeAll(async () => {
    runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
    const app = createApp(runtime);
    const counted = (request: Request) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      return app.fetch(request);
    };
    server = serve({ fetch: counted, hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = (await runtime.createKey({ workspace: 'default', role: 'agent', user: 'cy' })).key;
    const otherAgent = (await runtime.createKey({ workspace: 'default', role: 'agent', user: 'dee' })).key;
    const reader = (await runtime.createKey({ workspace: 'default', role: 'reader' })).key;
    // No DATABASE_URL: everything goes through the server's HTTP API with the key.
    await Promise.all([
      spawnMcp('http-agent', agent, { CANON_URL: url }),
      spawnMcp('http-other-agent', otherAgent, { CANON_URL: url }),
      spawnMcp('http-reader', reader, { CANON_URL: url }),
    ]);
  }, 180_000);
  afterAll(async () => {
    for (const name of ['http-agent', 'http-other-agent', 'http-reader']) await clients.get(name)?.client.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await runtime?.close();
  });

  it('remembers, recalls, lists conflicts and shows history over HTTP with the same decisions', async () => {
    const args = { subject: 'service:search', predicate: 'index engine', value: 'tantivy', occurred_at: '2024-06-01T00:00:00Z' };
    expect((await call('http-agent', 'remember', args)).data).toMatchObject({ ingest: 'created', decision: 'created' });
    expect((await call('http-agent', 'remember', args)).data).toMatchObject({ ingest: 'duplicate', decision: 'duplicate' });
    // Another agent disagrees: a conflict. The first agent's own later word is an update.
    const other = await call('http-other-agent', 'remember', { ...args, value: 'lucene', occurred_at: '2024-06-02T00:00:00Z' });
    expect(other.data).toMatchObject({ decision: 'conflicted' });

    const recalled = await call('http-reader', 'recall', { subject: 'service:search' });
    expect(recalled.text.split('\n')[0]).toMatch(FRAMING_FIRST_LINE);
    expect(recalled.data['memories'][0].conflict.map((s: Structured) => s.value)).toEqual(['tantivy', 'lucene']);
    const conflicts = await call('http-reader', 'conflicts', { subject: 'service:search' });
    expect(conflicts.data['conflicts']).toHaveLength(1);
    const history = await call('http-reader', 'history', { memory_id: conflicts.data['conflicts'][0].memory_id });
    expect(history.data['timeline'].decisions.map((d: Structured) => d.kind)).toEqual(['supports', 'disputes']);

    const denied = await call('http-reader', 'remember', args);
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/reader role cannot write/);
  });

  it('remembers in one round trip: the ingest waits for its compile and answers each claim\'s decision', async () => {
    const claim = { subject: 'service:queue', predicate: 'retention', value: '7 days', occurred_at: '2024-06-01T00:00:00Z' };
    requests.length = 0;
    const first = await call('http-agent', 'remember', claim);
    expect(requests).toEqual(['POST /v1/episodes?compile=wait']);
    expect(first.data).toMatchObject({ ingest: 'created', decision: 'created', decisions: [{ kind: 'supports', memory: { predicate: 'retention', status: 'current' } }] });
    expect(first.data['decisions'][0].memory.current.map((v: Structured) => v.value)).toEqual(['7 days']);

    requests.length = 0;
    const later = await call('http-agent', 'remember', { ...claim, value: '14 days', occurred_at: '2024-06-03T00:00:00Z' });
    expect(requests).toEqual(['POST /v1/episodes?compile=wait']);
    expect(later.data).toMatchObject({ decision: 'superseded', decisions: [{ memory_id: first.data['decisions'][0].memory_id, kind: 'changes' }] });

    // Free text: the claims the compiler read from it, still one request.
    requests.length = 0;
    const text = await call('http-agent', 'remember', { subject: 'service:queue', text: 'The staging deploy runs on Tuesday.', occurred_at: '2024-06-04T00:00:00Z' });
    expect(requests).toEqual(['POST /v1/episodes?compile=wait']);
    expect(text.data['decisions']).toHaveLength(1);
    expect(text.data['decision']).toBe('created');
  });
});
