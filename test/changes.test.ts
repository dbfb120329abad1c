import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, Principal } from '@canon/runtime';
import { pruneChangeFeed, pruneJobProgress } from '@canon/runtime/internals';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Follow it live (issue 17): what each compile changed, as a feed a key follows from a cursor —
// a JSON page, or server-sent events — with only what that key may see, nothing for a compile
// that changes nothing, and nothing left of what an erasure took away.

let canon: TestCanon;
let owner: { key: string; principal: Principal };
let carol: { key: string; principal: Principal };
let dave: { key: string; principal: Principal };
let alice: { key: string; principal: Principal };
let bob: { key: string; principal: Principal };

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = await canon.key('owner', { user: 'olga' });
  carol = await canon.key('member', { user: 'carol' });
  dave = await canon.key('member', { user: 'dave' });
  alice = await canon.key('member', { user: 'alice' });
  bob = await canon.key('member', { user: 'bob' });
}, 60_000);
afterAll(() => canon?.close());

const say = (who: { principal: Principal }, key: string, subject: string, predicate: string, value: unknown, extra: Record<string, unknown> = {}) =>
  canon.runtime.ingest(who.principal, [{ idempotency_key: key, subject, body: { claims: [{ predicate, value }] }, ...extra }], { compile: 'wait' });

async function page(key: string, query: string): Promise<{ changes: ChangeEvent[]; next: string }> {
  const res = await canon.request(`/v1/changes${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/** Every change after a cursor (all pages). */
async function all(key: string, after = '0.0', filter = ''): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  for (;;) {
    const p = await page(key, `?after=${after}&limit=50${filter}`);
    out.push(...p.changes);
    if (p.changes.length < 50) return out;
    after = p.next;
  }
}

/**
 * The feed shows a compile's rows once every older transaction of the cluster has ended (other
 * test files run beside this one): wait until what is expected is there.
 */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 1500; i += 1) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never saw ${what}`);
}

/** Reads SSE events from a response until `stop` says enough (or the stream ends). */
async function readEvents(res: Response, stop: (events: Array<{ id: string; event: string; data: ChangeEvent }>) => boolean) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id: string; event: string; data: ChangeEvent }> = [];
  let buffer = '';
  let ended = false;
  while (!stop(events)) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]));
      if (fields['data'] !== undefined) events.push({ id: fields['id'] ?? '', event: fields['event'] ?? '', data: JSON.parse(fields['data']) });
    }
  }
  return { events, ended, reader };
}

const sse = (key: string, query = '', headers: Record<string, string> = {}) => canon.request(`/v1/changes${query}`, { key, headers: { accept: 'text/event-stream', ...headers } });

describe('the change feed', { timeout: 180_000 }, () => {
  it('records what a compile changed: added, value, dispute opened and closed, with old and new and the episode that caused it', async () => {
    const start = (await page(owner.key, '')).next;
    const first = await say(carol, 'f-1', 'service:feed', 'deploy day', 'Tuesday');
    const added = await until(() => all(owner.key, start), (c) => c.length >= 1, 'the first change');
    expect(added).toEqual([
      expect.objectContaining({ subject: 'service:feed', predicate: 'deploy day', change: 'added', before: null, after: { status: 'current', values: ['Tuesday'] }, episode_id: first.items[0]!.episode_id }),
    ]);
    // The same author again: an update of her own statement.
    await say(carol, 'f-2', 'service:feed', 'deploy day', 'Thursday');
    // Another member disagrees: a dispute.
    await say(dave, 'f-3', 'service:feed', 'deploy day', 'Friday');
    const changes = await until(() => all(owner.key, added[0]!.cursor), (c) => c.length >= 2, 'the update and the dispute');
    expect(changes.map((c) => [c.change, c.before, c.after])).toEqual([
      ['value', { status: 'current', values: ['Tuesday'] }, { status: 'current', values: ['Thursday'] }],
      ['dispute_opened', { status: 'current', values: ['Thursday'] }, { status: 'conflicted', values: expect.arrayContaining(['Thursday', 'Friday']) }],
    ]);
    expect(changes.every((c) => c.memory_id === added[0]!.memory_id)).toBe(true);
    // Cursors are in commit order.
    expect(changes[0]!.cursor).not.toBe(changes[1]!.cursor);
  });

  it('records nothing for a compile, a rebuild or a verify that changes nothing', async () => {
    const before = await until(() => all(owner.key), (c) => c.some((x) => x.change === 'dispute_opened'), 'the feed so far');
    const last = before.at(-1)!.cursor;
    await canon.runtime.compile(owner.principal, { subject: 'service:feed' });
    await canon.runtime.rebuild(owner.principal, 'service:feed');
    const report = await canon.runtime.verify(owner.principal, 'service:feed');
    expect(report.ok).toBe(true);
    // A witness: once a later change is in the feed, anything the no-ops recorded would be before it.
    await say(carol, 'w-1', 'service:witness', 'owner team', 'payments');
    const after = await until(() => all(owner.key, last), (c) => c.some((x) => x.subject === 'service:witness'), 'the witness');
    expect(after.map((c) => c.subject)).toEqual(['service:witness']);
  });

  it('records what a policy change rebuilt: the dispute closed', async () => {
    const last = (await until(() => all(owner.key), (c) => c.some((x) => x.subject === 'service:witness'), 'the feed')).at(-1)!.cursor;
    await canon.runtime.setPolicies(owner.principal, { predicates: { 'deploy day': { cardinality: 'one', mode: 'supersede', min_role: 'reader' } } });
    const closed = await until(() => all(owner.key, last), (c) => c.length >= 1, 'the rebuild');
    expect(closed).toEqual([expect.objectContaining({ subject: 'service:feed', change: 'dispute_closed', after: { status: 'current', values: ['Friday'] } })]);
  });

  it('resumes from a cursor with exactly the rest, as a page and as a stream (Last-Event-ID)', async () => {
    const everything = await until(() => all(owner.key), (c) => c.some((x) => x.change === 'dispute_closed'), 'the feed');
    expect(everything.length).toBeGreaterThanOrEqual(4);
    const k = 1;
    const rest = await all(owner.key, everything[k]!.cursor);
    expect(rest.map((c) => c.cursor)).toEqual(everything.slice(k + 1).map((c) => c.cursor));
    const firstPage = await page(owner.key, '?limit=2');
    expect(firstPage.changes.map((c) => c.cursor)).toEqual(everything.slice(0, 2).map((c) => c.cursor));
    expect(firstPage.next).toBe(everything[1]!.cursor);

    const res = await sse(owner.key, '', { 'last-event-id': everything[k]!.cursor });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const { events, reader } = await readEvents(res, (e) => e.length >= everything.length - k - 1);
    await reader.cancel();
    expect(events.map((e) => e.id)).toEqual(everything.slice(k + 1).map((c) => c.cursor));
    expect(events.every((e) => e.event === 'change')).toBe(true);
    expect(events.map((e) => e.data)).toEqual(everything.slice(k + 1));
  });

  it('streams a compile’s changes to a follower as they happen', async () => {
    const head = (await all(owner.key)).at(-1)!.cursor;
    const res = await sse(owner.key, `?after=${head}&subject=service:live`);
    const reading = readEvents(res, (e) => e.length >= 2);
    await say(carol, 'l-1', 'service:live', 'region', 'eu-west-1');
    await say(carol, 'l-2', 'service:live', 'region', 'us-east-1');
    // Another subject's change is filtered out of this stream.
    await say(carol, 'l-3', 'service:elsewhere', 'region', 'ap-south-1');
    const { events, reader } = await reading;
    await reader.cancel();
    expect(events.map((e) => [e.data.subject, e.data.change, e.data.before?.values ?? null, e.data.after?.values ?? null])).toEqual([
      ['service:live', 'added', null, ['eu-west-1']],
      ['service:live', 'value', ['eu-west-1'], ['us-east-1']],
    ]);
    const byPredicate = await until(() => all(owner.key, head, '&predicate=region'), (c) => c.length >= 3, 'the region changes');
    expect(byPredicate.map((c) => c.subject)).toEqual(['service:live', 'service:live', 'service:elsewhere']);
  });

  it('reads a cursor with leading zeros as the same place, not as an octal number', async () => {
    await say(carol, 'z-1', 'service:zeros', 'region', 'eu-west-1');
    await say(carol, 'z-2', 'service:zeros', 'region', 'us-east-1');
    const changes = await until(() => all(owner.key, '0.0', '&subject=service:zeros'), (c) => c.length >= 2, 'the two changes');
    const [tx, position] = changes[0]!.cursor.split('.');
    const plain = await page(owner.key, `?after=${tx}.${position}&subject=service:zeros`);
    const padded = await page(owner.key, `?after=0${tx}.00${position}&subject=service:zeros`);
    expect(plain.changes.map((c) => c.cursor)).toEqual([changes[1]!.cursor]);
    expect(padded).toEqual(plain);
    const episodes = async (after: string) => (await (await canon.request(`/v1/episodes?after=${after}`, { key: owner.key })).json()).episodes.map((e: { id: string }) => e.id);
    const [etx, epos] = (await (await canon.request('/v1/episodes?limit=1', { key: owner.key })).json()).next.split('.');
    expect(await episodes(`0${etx}.0${epos}`)).toEqual(await episodes(`${etx}.${epos}`));
  });

  it('ends a stream whose key is revoked, or whose user is erased, while it follows: nothing after that reaches it', async () => {
    for (const how of ['revoked', 'erased'] as const) {
      const follower = await canon.key('reader', how === 'erased' ? { user: `eve-${how}` } : {});
      const head = (await all(owner.key)).at(-1)!.cursor;
      const res = await sse(follower.key, `?after=${head}&subject=service:watched-${how}`);
      expect(res.status).toBe(200);
      const first = readEvents(res, (e) => e.length >= 1);
      await say(carol, `w-1-${how}`, `service:watched-${how}`, 'region', 'eu-west-1');
      const { events: before, reader } = await first;
      expect(before.map((e) => e.data.after?.values)).toEqual([['eu-west-1']]);

      if (how === 'revoked') await canon.runtime.revokeKey(follower.principal.key_id);
      else await canon.runtime.erase(owner.principal, { user: `eve-${how}` });
      await say(carol, `w-2-${how}`, `service:watched-${how}`, 'region', 'us-east-1');
      await until(() => all(owner.key, head, `&subject=service:watched-${how}`), (c) => c.length >= 2, 'the change after the revocation');

      // The stream says why in its last event and ends; the change after it never came.
      const rest: Array<{ event: string; data: unknown }> = [];
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      for (const block of text.split('\n\n')) {
        const fields = Object.fromEntries(block.split('\n').filter((l) => l !== '' && !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]));
        if (fields['data'] !== undefined) rest.push({ event: fields['event'] ?? '', data: JSON.parse(fields['data']) });
      }
      expect(text, how).not.toContain('us-east-1');
      expect(rest.map((e) => e.event), how).toEqual(['revoked']);
      expect(rest[0]!.data).toMatchObject({ type: 'urn:canon:problem:unauthorized', status: 401 });
      expect((await sse(follower.key, `?after=${head}`)).status).toBe(401);
    }
  });

  it('never shows another user’s personal memory, on a page or a stream', async () => {
    const head = (await all(owner.key)).at(-1)!.cursor;
    await say(alice, 'p-1', 'note:alice', 'favourite editor', 'mkalicesecret1', { scope: 'personal' });
    await say(alice, 'p-2', 'service:feed', 'pager', 'mkalicesecret2', { scope: 'personal' });
    await say(carol, 'p-3', 'service:after-alice', 'owner team', 'search');
    const mine = await until(() => all(alice.key, head), (c) => c.some((x) => x.subject === 'service:after-alice'), 'alice’s changes');
    expect(mine.filter((c) => c.scope === 'personal').map((c) => [c.subject, c.after?.values[0]])).toEqual([
      ['note:alice', 'mkalicesecret1'],
      ['service:feed', 'mkalicesecret2'],
    ]);
    for (const other of [owner, bob, carol]) {
      const theirs = await until(() => all(other.key, head), (c) => c.some((x) => x.subject === 'service:after-alice'), 'the witness');
      expect(JSON.stringify(theirs)).not.toContain('mkalicesecret');
      expect(JSON.stringify(theirs)).not.toContain('note:alice');
      const res = await sse(other.key, `?after=${head}`);
      const { events, reader } = await readEvents(res, (e) => e.some((x) => x.data.subject === 'service:after-alice'));
      await reader.cancel();
      expect(JSON.stringify(events)).not.toContain('mkalicesecret');
    }
  });

  it('keeps nothing of what an erasure took away', async () => {
    await say(carol, 'e-1', 'service:doomed', 'codename', 'mkerasedsubject');
    await say(bob, 'e-2', 'service:kept', 'codename', 'mkerasedbob');
    await say(carol, 'e-3', 'service:kept', 'region', 'eu-central-1');
    await until(() => all(owner.key), (c) => JSON.stringify(c).includes('mkerasedbob') && JSON.stringify(c).includes('mkerasedsubject'), 'the doomed values');
    await canon.runtime.erase(owner.principal, { subject: 'service:doomed' });
    await canon.runtime.erase(owner.principal, { user: 'bob' });
    const after = await all(owner.key);
    const text = JSON.stringify(after);
    expect(text).not.toContain('mkerasedsubject');
    expect(text).not.toContain('service:doomed');
    expect(text).not.toContain('mkerasedbob');
    // What bob's erasure changed in a subject that stays is told without what it read: the
    // memory is gone, and its key was bob's words, so it is named by id alone. Carol's memory
    // there did not change, so it is not in the feed again.
    const erased = await until(() => all(owner.key, '0.0', '&subject=service:kept'), (c) => c.some((x) => x.change === 'erased'), 'the erased change');
    expect(erased.map((c) => [c.key, c.predicate, c.change, c.before, c.after])).toEqual([['', '', 'erased', null, null]]);
    expect(erased[0]!.memory_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('ages out changes older than the retention, in every workspace, and keeps the rest', async () => {
    await say(owner, 'aged-1', 'service:aged', 'owner team', 'core');
    await say(owner, 'aged-2', 'service:aged', 'owner team', 'platform');
    const feed = await until(() => all(owner.key, '0.0', '&subject=service%3Aaged'), (c) => c.length === 2, 'the two changes of service:aged');
    // One of them as if written 31 days ago: the database owner ages it, as time would.
    await canon.runtime.pool.query(`UPDATE changes SET changed_at = now() - interval '31 days' WHERE subject = 'service:aged' AND tx_id || '.' || position = $1`, [feed[0]!.cursor]);
    expect(await pruneChangeFeed(canon.runtime.pool, 30)).toBe(1);
    expect((await all(owner.key, '0.0', '&subject=service%3Aaged')).map((c) => c.cursor)).toEqual([feed[1]!.cursor]);
    expect(await pruneChangeFeed(canon.runtime.pool, 30)).toBe(0);
  });

  it('ages out the progress of jobs reported before the job retention, as the system role', async () => {
    const [aged, fresh] = ['00000000-0000-4000-8000-00000000a9e1', '00000000-0000-4000-8000-00000000a9e2'];
    for (const id of [aged, fresh]) await canon.runtime.pool.query(`INSERT INTO job_progress (workspace_id, job_id, done, total) VALUES ('w-aged-jobs', $1, 1, 1)`, [id]);
    await canon.runtime.pool.query(`UPDATE job_progress SET updated_at = now() - interval '8 days' WHERE job_id = $1`, [aged]);
    expect(await pruneJobProgress(canon.runtime.pool, 7)).toBe(1);
    const { rows } = await canon.runtime.pool.query(`SELECT job_id FROM job_progress WHERE workspace_id = 'w-aged-jobs'`);
    expect(rows).toEqual([{ job_id: fresh }]);
  });

  it('refuses a malformed cursor with a 400 problem', async () => {
    for (const q of ['?after=abc', '?after=1', '?after=1.2.3', `?after=${'9'.repeat(21)}.1`, '?limit=0', '?limit=5000']) {
      const res = await canon.request(`/v1/changes${q}`, { key: owner.key });
      expect(res.status, q).toBe(400);
      expect(res.headers.get('content-type'), q).toContain('application/problem+json');
    }
    const stream = await sse(owner.key, '', { 'last-event-id': 'nope' });
    expect(stream.status).toBe(400);
    expect(stream.headers.get('content-type')).toContain('application/problem+json');
  });

  it('ends open streams cleanly when the server stops following', async () => {
    const res = await sse(owner.key, '?subject=service:nothing-here');
    const reading = readEvents(res, () => false);
    canon.runtime.stopFollowing();
    const { ended, events } = await reading;
    expect(ended).toBe(true);
    expect(events).toEqual([]);
  });
});
