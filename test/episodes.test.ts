import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

let canon: TestCanon;
let owner: string;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
});
afterAll(() => canon.close());

const episode = (key: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject: 'service:billing',
  occurred_at: '2026-03-02T10:00:00.000Z',
  body: { text: `event ${key}` },
  ...extra,
});

async function countEpisodes(): Promise<number> {
  const { rows } = await canon.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episodes');
  return rows[0]!.n;
}

describe('POST /v1/episodes', () => {
  it('creates, then recognises the same envelope as a duplicate with the original id', async () => {
    const first = await canon.request('/v1/episodes', { key: owner, json: episode('dup-1') });
    expect(first.status).toBe(200);
    const a = await first.json();
    expect(a.items).toEqual([{ index: 0, status: 'created', episode_id: expect.any(String) }]);
    const second = await (await canon.request('/v1/episodes', { key: owner, json: episode('dup-1') })).json();
    expect(second.items).toEqual([{ index: 0, status: 'duplicate', episode_id: a.items[0].episode_id }]);
  });

  it('treats a retried post without occurred_at as the same event', async () => {
    const body = { idempotency_key: 'no-time', subject: 's', body: { text: 'x' } };
    const a = await (await canon.request('/v1/episodes', { key: owner, json: body })).json();
    await new Promise((r) => setTimeout(r, 5));
    const b = await (await canon.request('/v1/episodes', { key: owner, json: body })).json();
    expect(b.items[0]).toEqual({ index: 0, status: 'duplicate', episode_id: a.items[0].episode_id });
  });

  it('answers each claim\'s decision with ?compile=wait, and a retry with the decisions of the first', async () => {
    const claim = (key: string, value: string, at: string) => ({
      idempotency_key: key,
      subject: 'service:decided',
      occurred_at: at,
      kind: 'claim',
      body: { claims: [{ predicate: 'deploy day', value }, { predicate: 'owning team', value: 'payments' }] },
    });
    const first = await (await canon.request('/v1/episodes?compile=wait', { key: owner, json: claim('decided-1', 'Tuesday', '2026-03-01T10:00:00Z') })).json();
    expect(first.compiled).toHaveLength(1);
    expect(first.items[0].decisions.map((d: { claim: number; kind: string; memory: { predicate: string } }) => [d.claim, d.kind, d.memory.predicate])).toEqual([
      [0, 'supports', 'deploy day'],
      [1, 'supports', 'owning team'],
    ]);
    const later = await (await canon.request('/v1/episodes?compile=wait', { key: owner, json: claim('decided-2', 'Thursday', '2026-03-05T10:00:00Z') })).json();
    const moved = later.items[0].decisions[0];
    expect(moved).toMatchObject({ claim: 0, kind: 'changes', target: { idempotency_key: 'decided-1', index: 0 } });
    expect(moved.memory.current.map((v: { value: unknown }) => v.value)).toEqual(['Thursday']);
    const retried = await (await canon.request('/v1/episodes?compile=wait', { key: owner, json: claim('decided-1', 'Tuesday', '2026-03-01T10:00:00Z') })).json();
    expect(retried.items[0]).toMatchObject({ status: 'duplicate', episode_id: first.items[0].episode_id });
    expect(retried.items[0].decisions.map((d: { claim: number }) => d.claim)).toEqual([0, 1]);
    // Without compile=wait, nothing is decided yet: no decisions.
    const queued = await (await canon.request('/v1/episodes', { key: owner, json: claim('decided-3', 'Friday', '2026-03-06T10:00:00Z') })).json();
    expect(queued.items[0].decisions).toBeUndefined();
  });

  it('answers 409 key_conflict naming the stored episode when a key comes back with another envelope', async () => {
    const created = await (await canon.request('/v1/episodes', { key: owner, json: episode('conf-1') })).json();
    const before = await countEpisodes();
    const res = await canon.request('/v1/episodes', {
      key: owner,
      json: { episodes: [episode('conf-new'), episode('conf-1', { body: { text: 'something else' } })] },
    });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = await res.json();
    expect(p.type).toBe('urn:canon:problem:key_conflict');
    expect(p.conflicts).toEqual([
      { index: 1, source: 'api', idempotency_key: 'conf-1', episode_id: created.items[0].episode_id },
    ]);
    expect(await countEpisodes()).toBe(before); // conf-new was not stored either
  });

  it('rejects a batch holding one invalid item, storing nothing and naming the item', async () => {
    const before = await countEpisodes();
    const res = await canon.request('/v1/episodes', {
      key: owner,
      json: { episodes: [episode('ok-1'), episode('ok-2'), { idempotency_key: 'bad', subject: '', occurred_at: 'yesterday' }] },
    });
    expect(res.status).toBe(400);
    const p = await res.json();
    expect(p.type).toBe('urn:canon:problem:validation');
    expect(p.issues.map((i: { index: number; path: string }) => `${i.index}:${i.path}`).sort()).toEqual(['2:occurred_at', '2:subject']);
    expect(await countEpisodes()).toBe(before);
  });

  it('rejects a batch with the same key twice and different content', async () => {
    const before = await countEpisodes();
    const res = await canon.request('/v1/episodes', {
      key: owner,
      json: { episodes: [episode('twice'), episode('twice', { body: { text: 'other' } })] },
    });
    expect(res.status).toBe(409);
    expect((await res.json()).conflicts[0]).toMatchObject({ index: 1, idempotency_key: 'twice', episode_id: null });
    expect(await countEpisodes()).toBe(before);
  });

  it('counts an identical repeat inside one batch as a duplicate of the first', async () => {
    const res = await (await canon.request('/v1/episodes', { key: owner, json: { episodes: [episode('rep'), episode('rep')] } })).json();
    expect(res.items.map((i: { status: string }) => i.status)).toEqual(['created', 'duplicate']);
    expect(res.items[0].episode_id).toBe(res.items[1].episode_id);
  });

  it('gives 1,000 created then 1,000 duplicate for the same 1,000-episode batch', async () => {
    const batch = { episodes: Array.from({ length: 1000 }, (_, i) => episode(`big-${i}`)) };
    const a = await (await canon.request('/v1/episodes', { key: owner, json: batch })).json();
    expect(a.created).toBe(1000);
    const b = await (await canon.request('/v1/episodes', { key: owner, json: batch })).json();
    expect(b.duplicates).toBe(1000);
    expect(b.items.map((i: { episode_id: string }) => i.episode_id)).toEqual(a.items.map((i: { episode_id: string }) => i.episode_id));
  });

  it('gives new episodes time-ordered ids (UUID version 7) of the time they were ingested', async () => {
    const before = Date.now();
    const res = await (await canon.request('/v1/episodes', { key: owner, json: { episodes: [episode('v7-a'), episode('v7-b')] } })).json();
    const after = Date.now();
    for (const { episode_id: id } of res.items as Array<{ episode_id: string }>) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
    }
  });

  it('ends 50 concurrent posts of the same batch with exactly one row per key', async () => {
    const batch = { episodes: Array.from({ length: 40 }, (_, i) => episode(`race-${(i * 7) % 40}`)) };
    const responses = await Promise.all(Array.from({ length: 50 }, () => canon.request('/v1/episodes', { key: owner, json: batch })));
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(bodies.reduce((n, b) => n + b.created, 0)).toBe(40);
    const { rows } = await canon.runtime.pool.query<{ n: number; d: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS d FROM episodes WHERE idempotency_key LIKE 'race-%'`,
    );
    expect(rows[0]).toEqual({ n: 40, d: 40 });
  });

  it('refuses bad input with problem+json and stores nothing', async () => {
    const before = await countEpisodes();
    const cases: Array<[string, { body?: string; json?: unknown; headers?: Record<string, string> }, number, string]> = [
      ['malformed JSON', { body: '{"idempotency_key": ', headers: { 'content-type': 'application/json' } }, 400, 'malformed_json'],
      ['not JSON', { body: 'hello', headers: { 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
      ['U+0000 in a string', { json: episode('nul', { subject: 'a\u0000b' }) }, 400, 'validation'],
      ['U+0000 deep in the body', { json: episode('nul2', { body: { text: 'ok', deep: { x: ['\u0000'] } } }) }, 400, 'validation'],
      ['a key too long', { json: episode('k'.repeat(600)) }, 400, 'validation'],
      ['a wrong type', { json: episode('t', { sequence: 'one' }) }, 400, 'validation'],
      ['an unknown field', { json: episode('u', { workspace_id: 'other' }) }, 400, 'validation'],
      ['an empty batch', { json: { episodes: [] } }, 400, 'validation'],
      ['too many episodes', { json: { episodes: Array.from({ length: 1001 }, (_, i) => episode(`many-${i}`)) } }, 400, 'validation'],
      ['a body over 5 MiB', { json: { episodes: [episode('huge', { body: { text: 'x', blob: 'y'.repeat(5 * 1024 * 1024) } })] } }, 413, 'payload_too_large'],
      ['an episode body over its limit', { json: episode('fat', { body: { blob: 'y'.repeat(300 * 1024) } }) }, 400, 'validation'],
    ];
    for (const [name, init, status, type] of cases) {
      const res = await canon.request('/v1/episodes', { key: owner, method: 'POST', ...init });
      expect(res.status, name).toBe(status);
      expect(res.headers.get('content-type'), name).toBe('application/problem+json');
      expect((await res.json()).type, name).toBe(`urn:canon:problem:${type}`);
    }
    expect(await countEpisodes()).toBe(before);
  });

  it('takes workspace and actor from the key, never from the body', async () => {
    const agent = await canon.key('agent', { workspace: 'other-ws', user: 'bot-7' });
    const res = await (await canon.request('/v1/episodes', { key: agent.key, json: episode('who') })).json();
    const { rows } = await canon.runtime.pool.query('SELECT workspace_id, actor_role, actor_user FROM episodes WHERE id = $1', [res.items[0].episode_id]);
    expect(rows[0]).toEqual({ workspace_id: 'other-ws', actor_role: 'agent', actor_user: 'bot-7' });
  });

  it('needs a user on the key for a personal episode', async () => {
    const res = await canon.request('/v1/episodes', { key: owner, json: episode('mine', { scope: 'personal' }) });
    expect(res.status).toBe(400);
    expect((await res.json()).issues[0]).toMatchObject({ index: 0, path: 'scope' });
  });
});

describe('authentication', () => {
  it('answers 401 for a missing, unknown or revoked key and 403 for a reader writing', async () => {
    const missing = await canon.request('/v1/episodes', { json: episode('a1') });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect((await missing.json()).type).toBe('urn:canon:problem:unauthorized');
    expect((await canon.request('/v1/episodes', { key: 'canon_nope', json: episode('a2') })).status).toBe(401);
    expect((await canon.request('/v1/episodes', { headers: { authorization: 'Basic abc' }, json: episode('a2') })).status).toBe(401);

    const revoked = await canon.runtime.createKey({ workspace: 'default', role: 'member' });
    expect((await canon.request('/v1/episodes', { key: revoked.key, json: episode('a3') })).status).toBe(200);
    await canon.runtime.revokeKey(revoked.record.id);
    expect((await canon.request('/v1/episodes', { key: revoked.key, json: episode('a4') })).status).toBe(401);

    const reader = await canon.key('reader');
    const res = await canon.request('/v1/episodes', { key: reader.key, json: episode('a5') });
    expect(res.status).toBe(403);
    expect((await res.json()).type).toBe('urn:canon:problem:forbidden');
    expect((await canon.request('/v1/episodes?limit=1', { key: reader.key })).status).toBe(200);
  });

  it('stores only a hash of each key', async () => {
    const created = await canon.runtime.createKey({ workspace: 'default', role: 'agent' });
    const { rows } = await canon.runtime.pool.query('SELECT key_hash FROM api_keys WHERE id = $1', [created.record.id]);
    expect(rows[0].key_hash).not.toContain(created.key);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the log', () => {
  it('refuses UPDATE, DELETE and TRUNCATE on episodes', async () => {
    await canon.request('/v1/episodes', { key: owner, json: episode('immutable') });
    await expect(canon.runtime.pool.query(`UPDATE episodes SET subject = 'x' WHERE idempotency_key = 'immutable'`)).rejects.toThrow(/append-only/);
    await expect(canon.runtime.pool.query(`DELETE FROM episodes WHERE idempotency_key = 'immutable'`)).rejects.toThrow(/append-only/);
    await expect(canon.runtime.pool.query('TRUNCATE episodes')).rejects.toThrow(/append-only/);
    const { rows } = await canon.runtime.pool.query(`SELECT subject FROM episodes WHERE idempotency_key = 'immutable'`);
    expect(rows).toEqual([{ subject: 'service:billing' }]);
  });

  it('pages in commit order, by subject, to the end, with times at millisecond precision', async () => {
    const subject = 'paging:test';
    const batch = { episodes: Array.from({ length: 25 }, (_, i) => episode(`page-${i}`, { subject, occurred_at: '2026-01-01T00:00:00.123456Z' })) };
    await canon.request('/v1/episodes', { key: owner, json: batch });
    // Rows show once every older transaction of the cluster has ended (other files run too).
    for (let i = 0; i < 300; i += 1) {
      const all = await (await canon.request(`/v1/episodes?subject=${encodeURIComponent(subject)}&limit=1000`, { key: owner })).json();
      if (all.episodes.length === 25) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seen: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 10; guard += 1) {
      const q: string = `/v1/episodes?subject=${encodeURIComponent(subject)}&limit=10${after ? `&after=${after}` : ''}`;
      const page = await (await canon.request(q, { key: owner })).json();
      seen.push(...page.episodes.map((e: { idempotency_key: string }) => e.idempotency_key));
      expect(page.episodes.every((e: { occurred_at: string }) => e.occurred_at === '2026-01-01T00:00:00.123Z')).toBe(true);
      after = page.next;
      if (!after) break;
    }
    expect(seen.sort()).toEqual(batch.episodes.map((e) => e.idempotency_key).sort());
    expect((await canon.request('/v1/episodes?after=garbage', { key: owner })).status).toBe(400);
    expect((await canon.request('/v1/episodes?limit=0', { key: owner })).status).toBe(400);
  });

  it('does not return rows of a transaction still in flight, nor skip them once committed', async () => {
    const subject = 'inflight:test';
    const keysOf = (page: { episodes: Array<{ idempotency_key: string }> }) => page.episodes.map((e) => e.idempotency_key);
    // Visibility waits for every older transaction of the cluster (other test files' too):
    // poll until what must become visible is.
    const pageUntil = async (query: string, ready: (keys: string[]) => boolean) => {
      for (let i = 0; ; i += 1) {
        const page = await (await canon.request(query, { key: owner })).json();
        if (ready(keysOf(page)) || i > 300) return page;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await canon.request('/v1/episodes', { key: owner, json: episode('if-0', { subject }) });
    await pageUntil(`/v1/episodes?subject=${subject}`, (k) => k.includes('if-0'));
    const open = await canon.runtime.pool.connect();
    try {
      await open.query('BEGIN');
      // Take an xid now, insert later: its row is older in xid order than the next commit.
      await open.query('SELECT pg_current_xact_id()');
      await canon.request('/v1/episodes', { key: owner, json: episode('if-2', { subject }) });
      const page1 = await (await canon.request(`/v1/episodes?subject=${subject}`, { key: owner })).json();
      // Nothing past the open transaction is visible yet: if-2 waits for it.
      expect(keysOf(page1)).toEqual(['if-0']);
      await open.query(
        `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, kind, body, occurred_at,
           occurred_at_defaulted, lineage, snapshot, actor_role, content_hash)
         VALUES ('default', gen_random_uuid(), 'api', 'if-1', $1, 'workspace', 'message', '{}', now(), true, 'api:if-1', false, 'owner', 'x')`,
        [subject],
      );
      await open.query('COMMIT');
      const page2 = await pageUntil(`/v1/episodes?subject=${subject}&after=${page1.episodes[0].log_position}`, (k) => k.length >= 2);
      expect(keysOf(page2)).toEqual(['if-1', 'if-2']);
    } finally {
      open.release();
    }
  });
});

describe('malformed bodies on every JSON route', () => {
  it('answers 400 malformed_json, never 500', async () => {
    for (const path of ['/v1/compile', '/v1/rebuild', '/v1/verify']) {
      const res = await canon.request(path, { key: owner, method: 'POST', body: '{"subject": ', headers: { 'content-type': 'application/json' } });
      expect(res.status, path).toBe(400);
      expect((await res.json()).type, path).toBe('urn:canon:problem:malformed_json');
    }
  });

  it('reads no body where a route takes none, whatever the content type; an empty one where it needs one is malformed', async () => {
    // Clients set the content type on every request: a DELETE with it and no body was refused as malformed.
    const json = { 'content-type': 'application/json' };
    const gone = await canon.request('/v1/webhooks/00000000-0000-0000-0000-000000000000', { key: owner, method: 'DELETE', body: '', headers: json });
    expect(gone.status).toBe(404);
    expect((await gone.json()).type).toBe('urn:canon:problem:not_found');
    const subject = await canon.request(`/v1/subjects/${encodeURIComponent('service:never-written')}`, { key: owner, method: 'DELETE', body: '', headers: json });
    expect(subject.status).not.toBe(400);
    expect(subject.status).toBeLessThan(500);
    for (const path of ['/v1/episodes', '/v1/compile', '/v1/context', '/v1/links']) {
      const res = await canon.request(path, { key: owner, method: 'POST', body: '', headers: json });
      expect(res.status, path).toBe(400);
      expect((await res.json()).type, path).toBe('urn:canon:problem:malformed_json');
    }
  });
});
