import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, Principal, WebhookView } from '@canon/runtime';
import { runCanon, startTestCanon, type TestCanon } from '@canon/testing';

// Webhooks (issue 17): the change feed POSTed to a receiver, signed with the webhook's secret,
// only what the creating key may see; a receiver that fails or hangs is retried with backoff and
// then dead-lettered, and compiles never wait for it.

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let canon: TestCanon;
let receiver: http.Server;
let base: string;
const received: Received[] = [];
const hits = new Map<string, number>();
let owner: { key: string; principal: Principal };
let carol: { key: string; principal: Principal };
let alice: { key: string; principal: Principal };

const RETRY_LIMIT = 2;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path.startsWith('/fail')) return res.writeHead(500).end('no');
      // Never answers: the delivery's timeout ends it.
      if (path.startsWith('/hang')) return;
      received.push({ path, headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  canon = await startTestCanon(
    {},
    {
      CANON_COMPILE_DEBOUNCE_SECONDS: '3600',
      CANON_WEBHOOK_HOSTS: '127.0.0.1',
      CANON_WEBHOOK_TIMEOUT_MS: '300',
      CANON_WEBHOOK_RETRY_LIMIT: String(RETRY_LIMIT),
      CANON_WEBHOOK_RETRY_DELAY_SECONDS: '1',
    },
  );
  owner = await canon.key('owner', { user: 'olga' });
  carol = await canon.key('member', { user: 'carol' });
  alice = await canon.key('member', { user: 'alice' });
}, 60_000);
afterAll(async () => {
  await canon?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const say = (who: { principal: Principal }, key: string, subject: string, predicate: string, value: unknown, extra: Record<string, unknown> = {}) =>
  canon.runtime.ingest(who.principal, [{ idempotency_key: key, subject, body: { claims: [{ predicate, value }] }, ...extra }], { compile: 'wait' });

async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 1500; i += 1) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never saw ${what}`);
}

async function add(key: string, body: unknown): Promise<Response> {
  return canon.request('/v1/webhooks', { key, json: body });
}

async function list(key = owner.key): Promise<WebhookView[]> {
  return ((await (await canon.request('/v1/webhooks', { key })).json()) as { webhooks: WebhookView[] }).webhooks;
}

/** What a receiver does with a delivery: the signature over `<timestamp>.<body>`, a timestamp not too old. */
function verify(r: Received, secret: string): boolean {
  const timestamp = String(r.headers['canon-timestamp']);
  const signature = String(r.headers['canon-signature']);
  const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex')}`;
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
  return fresh && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

describe('webhooks', { timeout: 180_000 }, () => {
  it('refuses a target that is not http(s), a host the operator does not allow, and a role below maintainer', async () => {
    for (const url of ['ftp://127.0.0.1/x', 'file:///etc/passwd', 'not a url', 'http://169.254.169.254/latest/meta-data', 'http://example.com/hook']) {
      const res = await add(owner.key, { url });
      expect(res.status, url).toBe(400);
      expect(res.headers.get('content-type'), url).toContain('application/problem+json');
    }
    // Credentials in the URL: undeliverable (fetch refuses them), and a way to dress a host up as another.
    for (const url of [base.replace('http://', 'http://evil.com@'), base.replace('http://', 'http://user:pass@')]) {
      const res = await add(owner.key, { url: `${url}/hook` });
      expect(res.status, url).toBe(400);
      expect((await res.json()).issues[0].path, url).toBe('url');
    }
    expect((await add(carol.key, { url: `${base}/ok` })).status).toBe(403);
    expect((await canon.request('/v1/webhooks', { key: carol.key })).status).toBe(403);
    expect((await canon.request('/v1/webhooks/00000000-0000-0000-0000-000000000000', { key: owner.key, method: 'DELETE' })).status).toBe(404);
  });

  it('keeps a workspace to 50 webhooks', async () => {
    const many = (await canon.key('maintainer', { workspace: 'many-hooks' })).key;
    for (let i = 0; i < 50; i += 1) expect((await add(many, { url: `${base}/hook-${i}` })).status).toBe(201);
    const refused = await add(many, { url: `${base}/hook-50` });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/50 webhooks, the most it may have/);
    expect(((await (await canon.request('/v1/webhooks', { key: many })).json()) as { webhooks: unknown[] }).webhooks).toHaveLength(50);
  });

  it('delivers each change the creating key may see, signed, as the feed carries it', async () => {
    const res = await add(owner.key, { url: `${base}/ok`, subject: 'service:hooked' });
    expect(res.status).toBe(201);
    const { webhook, secret } = (await res.json()) as { webhook: WebhookView; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(JSON.stringify(await list())).not.toContain(secret);

    await say(carol, 'h-1', 'service:hooked', 'deploy day', 'Tuesday');
    await say(carol, 'h-2', 'service:hooked', 'deploy day', 'Thursday');
    // Alice's personal memory in the same subject: the owner's key may not see it, so neither may its webhook.
    await say(alice, 'h-3', 'service:hooked', 'pager', 'mkalicehook', { scope: 'personal' });
    await say(carol, 'h-4', 'service:hooked', 'region', 'eu-west-1');
    // Another subject: filtered out.
    await say(carol, 'h-5', 'service:unhooked', 'region', 'us-east-1');

    // Deliveries run side by side and may arrive in any order: the cursor orders them.
    const got = await until(() => received.filter((r) => r.path === '/ok'), (r) => r.length >= 3, 'the deliveries');
    const order = (c: string) => c.split('.').map(BigInt) as [bigint, bigint];
    const events = got
      .map((r) => JSON.parse(r.body) as ChangeEvent)
      .sort((a, b) => {
        const [x, y] = [order(a.cursor), order(b.cursor)];
        return x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0;
      });
    expect(events.map((e) => [e.subject, e.predicate, e.change, e.before?.values ?? null, e.after?.values ?? null])).toEqual([
      ['service:hooked', 'deploy day', 'added', null, ['Tuesday']],
      ['service:hooked', 'deploy day', 'value', ['Tuesday'], ['Thursday']],
      ['service:hooked', 'region', 'added', null, ['eu-west-1']],
    ]);
    for (const r of got) {
      expect(verify(r, secret)).toBe(true);
      expect(r.headers['canon-webhook-id']).toBe(webhook.id);
      expect(r.headers['canon-delivery']).toBe(JSON.parse(r.body).cursor);
      // A tampered body or another secret does not verify.
      expect(verify({ ...r, body: r.body.replace('service:hooked', 'service:forged') }, secret)).toBe(false);
      expect(verify(r, 'whsec_other')).toBe(false);
    }
    expect(JSON.stringify(received)).not.toContain('mkalicehook');
    // The same objects the feed shows.
    const feed = (await (await canon.request('/v1/changes?subject=service:hooked', { key: owner.key })).json()) as { changes: ChangeEvent[] };
    expect(events).toEqual(feed.changes);
    // The receiver answers before the dispatcher counts the delivery: wait for the count.
    const counted = await until(() => list(), (ws) => ws.find((w) => w.id === webhook.id)?.delivered === 3, 'three deliveries counted');
    const shown = counted.find((w) => w.id === webhook.id)!;
    expect(shown).toMatchObject({ active: true, delivered: 3, failed_attempts: 0, dead_letters: 0, subject: 'service:hooked' });
  });

  it('retries a receiver that fails or hangs with backoff, then dead-letters it; compiles finish meanwhile', async () => {
    const failing = (await (await add(owner.key, { url: `${base}/fail`, subject: 'service:flaky' })).json()) as { webhook: WebhookView };
    const hanging = (await (await add(owner.key, { url: `${base}/hang`, subject: 'service:flaky' })).json()) as { webhook: WebhookView };
    const compiled = await say(carol, 'x-1', 'service:flaky', 'owner team', 'payments');
    // The compile answers with its result: it only recorded the change.
    expect(compiled.compiled?.[0]?.memories_created).toBe(1);
    const dead = await until(
      () => list(),
      (ws) => ws.filter((w) => [failing.webhook.id, hanging.webhook.id].includes(w.id)).every((w) => w.dead_letters === 1),
      'both dead letters',
    );
    const f = dead.find((w) => w.id === failing.webhook.id)!;
    const h = dead.find((w) => w.id === hanging.webhook.id)!;
    // The first attempt and every retry, each failed, the last one dead-lettered.
    expect(f).toMatchObject({ delivered: 0, failed_attempts: RETRY_LIMIT + 1, dead_letters: 1, last_error: 'HTTP 500' });
    expect(h).toMatchObject({ delivered: 0, failed_attempts: RETRY_LIMIT + 1, dead_letters: 1 });
    expect(h.last_error).toContain('timed out');
    expect(hits.get('/fail')).toBe(RETRY_LIMIT + 1);
    // The job is in the dead-letter queue, naming the change by its cursor, never its content.
    // The count is written before the last attempt fails; pg-boss queues the dead letter after.
    const mine = await until(
      async () => (await canon.runtime.boss!.findJobs<{ webhook_id: string; cursor: string }>('webhook-dead')).filter((j) => [failing.webhook.id, hanging.webhook.id].includes(j.data.webhook_id)),
      (jobs) => jobs.length >= 2,
      'both jobs in the dead-letter queue',
    );
    expect(mine).toHaveLength(2);
    expect(JSON.stringify(mine.map((j) => j.data))).not.toContain('payments');
    // Meanwhile a compile answers as ever.
    const later = await say(carol, 'x-2', 'service:flaky', 'owner team', 'search');
    expect(later.compiled?.[0]?.memories_updated).toBe(1);
  });

  it('stops delivering once the creating key is revoked, or the webhook is removed', async () => {
    const maya = await canon.key('maintainer', { user: 'maya' });
    const revoked = (await (await add(maya.key, { url: `${base}/revoked`, subject: 'service:late' })).json()) as { webhook: WebhookView };
    const witness = (await (await add(owner.key, { url: `${base}/witness`, subject: 'service:late' })).json()) as { webhook: WebhookView };
    const removed = (await (await add(owner.key, { url: `${base}/removed`, subject: 'service:late' })).json()) as { webhook: WebhookView };
    await canon.runtime.revokeKey(maya.principal.key_id);
    expect((await canon.request(`/v1/webhooks/${removed.webhook.id}`, { key: owner.key, method: 'DELETE' })).status).toBe(200);
    await say(carol, 'r-1', 'service:late', 'region', 'eu-north-1');
    await until(() => received.filter((r) => r.path === '/witness'), (r) => r.length === 1, 'the witness delivery');
    // The dispatcher has been round to the revoked key's webhook once it says why it sends nothing.
    const after = await until(
      () => list(),
      (ws) => ws.find((w) => w.id === revoked.webhook.id)?.last_error?.includes('revoked') === true && ws.find((w) => w.id === witness.webhook.id)?.delivered === 1,
      'the revoked webhook seen and the witness delivery counted',
    );
    expect(after.find((w) => w.id === revoked.webhook.id)).toMatchObject({ active: false, delivered: 0, failed_attempts: 0, after: revoked.webhook.after });
    expect(after.find((w) => w.id === witness.webhook.id)).toMatchObject({ active: true, delivered: 1 });
    expect(after.some((w) => w.id === removed.webhook.id)).toBe(false);
    expect(hits.get('/revoked')).toBeUndefined();
    expect(hits.get('/removed')).toBeUndefined();
  });

  it('is what `canon webhooks add|list|remove` and `canon changes` do', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-webhooks-'));
    try {
      const env = { ...process.env, DATABASE_URL: canon.db.url, CANON_HOME: home, CANON_API_KEY: owner.key, CANON_WEBHOOK_HOSTS: '127.0.0.1' };
      const added = await runCanon(env, 'webhooks', 'add', `${base}/cli`, '--subject', 'service:cli', '--json');
      expect(added.code, added.stderr).toBe(0);
      const { webhook, secret } = JSON.parse(added.stdout) as { webhook: WebhookView; secret: string };
      expect(secret).toMatch(/^whsec_/);
      const listed = await runCanon(env, 'webhooks', 'list');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(webhook.id);
      expect(listed.stdout).toContain('subject=service:cli');
      expect(listed.stdout).not.toContain(secret);
      expect((await runCanon(env, 'webhooks', 'remove', webhook.id)).code).toBe(0);
      expect((await runCanon(env, 'webhooks', 'list')).stdout).not.toContain(webhook.id);
      expect((await runCanon(env, 'webhooks', 'add', 'http://example.com/x')).code).toBe(2);

      const feed = (await (await canon.request('/v1/changes?subject=service:hooked', { key: owner.key })).json()) as { changes: ChangeEvent[] };
      const printed = await runCanon(env, 'changes', '--subject', 'service:hooked', '--json');
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(feed.changes);
      const rest = await runCanon(env, 'changes', '--subject', 'service:hooked', '--after', feed.changes[0]!.cursor);
      expect(rest.stdout).toContain('Thursday');
      expect(rest.stdout).not.toContain(feed.changes[0]!.cursor);
      expect((await runCanon(env, 'changes', '--after', 'nope')).code).toBe(2);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
