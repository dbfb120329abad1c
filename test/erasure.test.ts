import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import { CLAIM_AT } from '@canon/store';

let canon: TestCanon;
let owner: string;
let member: string;
const enc = encodeURIComponent;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  member = (await canon.key('member', { user: 'mallory' })).key;
});
afterAll(() => canon.close());

/** Every table that holds rows about episodes, claims or what was derived from them. */
const TABLES = ['episodes', 'pending', 'claims', 'memories', 'memory_values', 'evidence', 'claim_decisions', 'episode_markers', 'subjects', 'compile_runs'] as const;

async function rowsOf(subject: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const where =
      table === 'evidence' || table === 'claim_decisions'
        ? `memory_id IN (SELECT id FROM memories WHERE subject = $1) OR idempotency_key LIKE 'er-%'`
        : 'subject = $1';
    const { rows } = await canon.runtime.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [subject]);
    out[table] = rows[0]!.n;
  }
  return out;
}

const ep = (key: string, subject: string, predicate: string, value: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject,
  occurred_at: '2024-05-01T09:00:00Z',
  kind: 'claim',
  body: { claims: [{ predicate, value }] },
  ...extra,
});

describe('erasure', () => {
  it('erases a subject and everything derived in one audited transaction; re-ingesting its keys answers erased', async () => {
    const subject = 'customer:acme';
    const batch = [ep('er-1', subject, 'contact', 'jane@acme.test'), ep('er-2', subject, 'plan', 'gold'), ep('er-3', subject, 'plan', 'silver', { source: 'mcp' })];
    expect((await canon.request('/v1/episodes?compile=wait', { key: owner, json: { episodes: batch } })).status).toBe(200);
    // One more, left pending (not compiled): erasure takes it too.
    expect((await canon.request('/v1/episodes', { key: owner, json: ep('er-4', subject, 'region', 'eu') })).status).toBe(200);
    await canon.request('/v1/episodes?compile=wait', { key: owner, json: ep('keep-1', 'customer:other', 'plan', 'bronze') });
    const before = await rowsOf(subject);
    for (const table of ['episodes', 'claims', 'memories', 'memory_values', 'evidence', 'claim_decisions', 'episode_markers', 'subjects', 'compile_runs', 'pending']) {
      expect(before[table], table).toBeGreaterThan(0);
    }

    const refused = await canon.request(`/v1/subjects/${enc(subject)}`, { method: 'DELETE', key: member });
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toBe('only an owner or a maintainer may erase, not a member');
    const agent = (await canon.key('agent')).key;
    expect((await (await canon.request(`/v1/subjects/${enc(subject)}`, { method: 'DELETE', key: agent })).json()).detail).toBe('only an owner or a maintainer may erase, not an agent');
    const res = await canon.request(`/v1/subjects/${enc(subject)}`, { method: 'DELETE', key: owner });
    expect(res.status).toBe(200);
    const erasure = await res.json();
    expect(erasure).toMatchObject({ target_kind: 'subject', episodes: 4, memories: 2, subjects: [subject] });
    // The audit row's hash of a subject is the one `erasure_rebuilt_subjects` keeps: migration 0040
    // knew the subjects erased before it by that identity.
    const hashes = await canon.runtime.pool.query(
      `SELECT e.target_hash, r.subject_hash FROM erasures e LEFT JOIN erasure_rebuilt_subjects r ON r.workspace_id = e.workspace_id AND r.erasure_id = e.id WHERE e.id = $1`,
      [erasure.erasure_id],
    );
    expect(hashes.rows).toHaveLength(1);
    expect(hashes.rows[0].subject_hash).toBe(hashes.rows[0].target_hash);

    expect(Object.values(await rowsOf(subject)).every((n) => n === 0), JSON.stringify(await rowsOf(subject))).toBe(true);
    const { rows: kept } = await canon.runtime.pool.query('SELECT subject FROM episodes');
    expect(kept).toEqual([{ subject: 'customer:other' }]);
    const { rows: keys } = await canon.runtime.pool.query<{ key_hash: string }>('SELECT key_hash FROM erased_keys');
    expect(keys).toHaveLength(4);
    const { rows: audit } = await canon.runtime.pool.query('SELECT * FROM erasures');
    expect(audit).toHaveLength(1);
    // Content-free: neither the subject nor any key or value appears in the tombstones or the audit.
    const stored = JSON.stringify([keys, audit]);
    for (const secret of [subject, 'er-1', 'jane@acme.test', 'gold']) expect(stored).not.toContain(secret);

    const again = await canon.request('/v1/episodes?compile=wait', {
      key: owner,
      json: { episodes: [batch[0], ep('er-5', subject, 'plan', 'platinum'), batch[2]] },
    });
    expect(again.status).toBe(200);
    const body = await again.json();
    expect(body.items.map((i: { status: string }) => i.status)).toEqual(['erased', 'created', 'erased']);
    expect(body.items[0].episode_id).toBeNull();
    expect(body).toMatchObject({ created: 1, duplicates: 0, erased: 2 });
    const { rows: episodes } = await canon.runtime.pool.query<{ idempotency_key: string }>('SELECT idempotency_key FROM episodes WHERE subject = $1', [subject]);
    expect(episodes.map((e) => e.idempotency_key)).toEqual(['er-5']);
    const memories = await (await canon.request(`/v1/subjects/${enc(subject)}/memories`, { key: owner })).json();
    expect(memories.memories.map((m: { predicate: string; current: Array<{ value: string }> }) => [m.predicate, m.current[0]!.value])).toEqual([['plan', 'platinum']]);
  });

  it('verify passes for a subject erased whole, and for one that never held anything', async () => {
    const subject = 'customer:verify-erased';
    expect((await canon.request('/v1/episodes?compile=wait', { key: owner, json: ep('ve-1', subject, 'plan', 'gold') })).status).toBe(200);
    expect((await canon.request(`/v1/subjects/${enc(subject)}`, { method: 'DELETE', key: owner })).status).toBe(200);
    for (const s of [subject, 'customer:never-written']) {
      const res = await canon.request('/v1/verify', { key: owner, json: { subject: s } });
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report.differences, s).toEqual([]);
      expect(report).toMatchObject({ ok: true, incremental_state_hash: report.rebuilt_state_hash, stored_state_hash: report.rebuilt_state_hash });
    }
  });

  it('erases a user’s episodes and rebuilds the subjects they touched from what remains', async () => {
    const subject = 'service:shared';
    // Another member, so mallory's value is a side of a dispute rather than overruled.
    const trent = (await canon.key('member', { user: 'trent' })).key;
    await canon.request('/v1/episodes?compile=wait', { key: trent, json: ep('u-1', subject, 'deploy day', 'Tuesday') });
    await canon.request('/v1/episodes?compile=wait', { key: member, json: ep('u-2', subject, 'deploy day', 'Friday') });
    await canon.request('/v1/episodes?compile=wait', { key: member, json: ep('u-3', subject, 'secret', 'x', { scope: 'personal' }) });
    expect((await (await canon.request(`/v1/subjects/${enc(subject)}/memories`, { key: owner })).json()).memories[0].status).toBe('conflicted');

    // A body naming neither (or both) says what it takes.
    for (const body of [{}, { subject: subject, user: 'mallory' }]) {
      const refused = await canon.request('/v1/erasures', { key: owner, json: body });
      expect(refused.status).toBe(400);
      expect((await refused.json()).detail).toMatch(/give one of subject or user, 1–512 characters: \{"subject": "service:billing"\} or \{"user": "alice"\}/);
    }
    const res = await canon.request('/v1/erasures', { key: owner, json: { user: 'mallory' } });
    expect(res.status).toBe(200);
    const erasure = await res.json();
    expect(erasure).toMatchObject({ target_kind: 'user', episodes: 2, subjects: [subject], keys_revoked: 1 });
    expect(erasure.rebuilt).toHaveLength(1);
    // mallory's key writes nothing in her name any more, and no key row names her.
    expect((await canon.request('/v1/episodes', { key: member, json: ep('u-4', subject, 'deploy day', 'Monday') })).status).toBe(401);
    const named = await canon.runtime.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE user_id = 'mallory'`);
    expect(named.rows[0]!.n).toBe(0);

    const after = await (await canon.request(`/v1/subjects/${enc(subject)}/memories`, { key: owner })).json();
    expect(after.memories.map((m: { status: string; current: Array<{ value: string }> }) => [m.status, m.current.map((v) => v.value)])).toEqual([['current', ['Tuesday']]]);
    const { rows } = await canon.runtime.pool.query<{ n: number }>(
      `SELECT (SELECT count(*)::int FROM episodes WHERE actor_user = 'mallory' OR owner = 'mallory')
            + (SELECT count(*)::int FROM claims WHERE coalesce(claim->>'user', claim->>${CLAIM_AT.user}) = 'mallory')
            + (SELECT count(*)::int FROM evidence WHERE idempotency_key IN ('u-2', 'u-3'))
            + (SELECT count(*)::int FROM memories WHERE owner = 'mallory') AS n`,
    );
    expect(rows[0]!.n).toBe(0);
    const verify = await (await canon.request('/v1/verify', { key: owner, json: { subject } })).json();
    expect(verify.ok).toBe(true);
  });

  it("names to a maintainer only the subjects where the person erased said something the workspace saw; a subject of their personal episodes is counted", async () => {
    const maintainer = (await canon.key('maintainer', { user: 'mia' })).key;
    const alice = (await canon.key('member', { user: 'alice' })).key;
    await canon.request('/v1/episodes?compile=wait', { key: alice, json: ep('al-1', 'service:alice-shared', 'deploy day', 'Monday') });
    await canon.request('/v1/episodes?compile=wait', { key: alice, json: ep('al-2', 'alice-private-subject', 'diagnosis', 'flu', { scope: 'personal' }) });
    const res = await canon.request('/v1/erasures', { key: maintainer, json: { user: 'alice' } });
    expect(res.status).toBe(200);
    const erasure = await res.json();
    expect(erasure).toMatchObject({ episodes: 2, subjects: ['service:alice-shared'], personal_subjects: 1 });
    expect(erasure.rebuilt.map((r: { subject: string }) => r.subject)).toEqual(['service:alice-shared']);
    expect(JSON.stringify(erasure)).not.toContain('alice-private-subject');
    // Both went: the private subject too.
    const { rows } = await canon.runtime.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM episodes WHERE subject IN ('service:alice-shared', 'alice-private-subject')`);
    expect(rows[0]!.n).toBe(0);
  });

  it('a stale proposal by revision is refused where an erasure brought a revision down; by ETag it is held to what it read', async () => {
    const subject = 'service:aba';
    const olga = (await canon.key('owner', { user: 'olga' })).key;
    const eve = (await canon.key('member', { user: 'eve' })).key;
    await canon.request('/v1/episodes?compile=wait', { key: olga, json: ep('aba-1', subject, 'cache ttl', '30') });
    await canon.request('/v1/episodes?compile=wait', { key: eve, json: { ...ep('aba-2', subject, 'cache ttl', '30'), occurred_at: '2024-05-02T09:00:00Z' } });
    const read = await (await canon.request(`/v1/subjects/${enc(subject)}/memories`, { key: owner })).json();
    const { id, revision: seen } = (read.memories as Array<{ id: string; revision: number }>)[0]!;
    expect(seen).toBe(2);
    const staleEtag = (await canon.request(`/v1/memories/${id}`, { key: owner })).headers.get('etag')!;
    expect((await canon.request('/v1/erasures', { key: owner, json: { user: 'eve' } })).status).toBe(200);
    await canon.request('/v1/episodes?compile=wait', { key: olga, json: { ...ep('aba-3', subject, 'cache ttl', '60'), occurred_at: '2024-05-03T09:00:00Z' } });
    const now = (await (await canon.request(`/v1/memories/${id}`, { key: owner })).json()) as { revision: number; view: { current: Array<{ value: string }> } };
    // The revision the stale client read, holding something else: it must not pass for what it read.
    expect(now.revision).toBe(seen);
    const proposal = { idempotency_key: 'aba-stale', value: '30', conditions: ['only after the freeze'], reason: 'enrich' };
    const byRevision = await canon.request(`/v1/memories/${id}/proposals`, { key: olga, json: { ...proposal, expected_revision: seen } });
    expect(byRevision.status).toBe(400);
    expect((await byRevision.json()).detail).toMatch(/an erasure touched.*send If-Match with its ETag/);
    const byEtag = await canon.request(`/v1/memories/${id}/proposals`, { key: olga, json: proposal, headers: { 'if-match': staleEtag } });
    expect(byEtag.status).toBe(412);
    const after = (await (await canon.request(`/v1/memories/${id}`, { key: owner })).json()) as { view: { current: Array<{ value: string }> } };
    expect(after.view.current.map((v) => v.value)).toEqual(['60']);
  });

  it('erasing a user takes an owner\'s link that quotes only that user\'s words, and keeps one whose keys others still state', async () => {
    const subject = 'team:ops';
    const zed = (await canon.key('member', { user: 'zed' })).key;
    const yan = (await canon.key('member', { user: 'yan' })).key;
    // zed's words are a key of their own; yan and the owner state the other key.
    await canon.request('/v1/episodes?compile=wait', { key: zed, json: ep('q-1', subject, 'a zed pager phrase', 'PagerDuty') });
    await canon.request('/v1/episodes?compile=wait', { key: yan, json: ep('q-2', subject, 'oncall tool', 'PagerDuty') });
    await canon.request('/v1/episodes?compile=wait', { key: yan, json: ep('q-3', subject, 'zzz yan rota', 'weekly') });
    await canon.request('/v1/episodes?compile=wait', { key: owner, json: ep('q-4', subject, 'rota', 'weekly') });
    const memories = async () =>
      (await (await canon.request(`/v1/subjects/${enc(subject)}/memories`, { key: owner })).json()).memories as Array<{ id: string; key: string; predicate: string }>;
    const idOf = (list: Array<{ id: string; predicate: string }>, predicate: string) => list.find((m) => m.predicate === predicate)!.id;
    const before = await memories();
    const link = async (a: string, b: string, key: string) => {
      const res = await canon.request('/v1/links?compile=wait', { key: owner, json: { memories: [idOf(before, a), idOf(before, b)], same: true, idempotency_key: key, reason: 'one tool' } });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
    };
    await link('a zed pager phrase', 'oncall tool', 'link-zed');
    await link('zzz yan rota', 'rota', 'link-yan');
    // The group is keyed by its smallest key: zed's words name the merged memory.
    expect((await memories()).map((m) => m.predicate)).toContain('a zed pager phrase');

    const res = await canon.request('/v1/erasures', { key: owner, json: { user: 'zed' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ target_kind: 'user', episodes: 2, subjects: [subject] });

    // Nothing of zed's words is left: not the memory's key, not the owner's link that quoted them.
    const after = await memories();
    expect(after.map((m) => m.predicate).sort()).toEqual(['oncall tool', 'rota']);
    const { rows } = await canon.runtime.pool.query<{ idempotency_key: string; body: unknown }>(
      `SELECT idempotency_key, body FROM episodes WHERE subject = $1 ORDER BY idempotency_key`,
      [subject],
    );
    expect(rows.map((r) => r.idempotency_key)).toEqual(['link-yan', 'q-2', 'q-3', 'q-4']);
    expect(JSON.stringify(rows)).not.toContain('zed pager');
    const dump = await canon.runtime.pool.query<{ t: string }>(`SELECT string_agg(m::text, ' ') AS t FROM memories m WHERE subject = $1`, [subject]);
    expect(dump.rows[0]!.t).not.toContain('zed pager');
    // (The link whose keys others still state holds: rota and yan's key are still one memory.)
    // A re-sync of the erased link answers erased.
    const again = await canon.request('/v1/links', { key: owner, json: { memories: [idOf(before, 'oncall tool'), idOf(before, 'rota')], same: false, idempotency_key: 'link-zed', reason: 'x' } });
    expect(again.status).toBe(400);
    expect((await again.json()).detail).toContain('erased episode');
    const verify = await (await canon.request('/v1/verify', { key: owner, json: { subject } })).json();
    expect(verify.ok).toBe(true);
  });

  it('refuses bad or empty targets with problem+json and writes nothing', async () => {
    const before = await canon.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM erasures');
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['/v1/erasures', { json: { user: 'nobody' } }, 404],
      ['/v1/erasures', { json: { user: 7 } }, 400],
      ['/v1/erasures', { json: { subject: 'a', user: 'b' } }, 400],
      ['/v1/erasures', { json: { subject: 'x'.repeat(600) } }, 400],
      [`/v1/subjects/${enc('never:seen')}`, { method: 'DELETE' }, 404],
    ];
    for (const [path, init, status] of cases) {
      const res = await canon.request(path, { key: owner, ...init });
      expect(res.status, `${path} ${JSON.stringify(init).slice(0, 60)}`).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const after = await canon.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM erasures');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});

describe('erasure and the writes racing it', () => {
  /** Waits until some backend waits on a lock while running a statement that starts with `sql`. */
  async function waitingOn(sql: string) {
    for (let i = 0; i < 400; i++) {
      const { rows } = await canon.runtime.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${sql}%`]);
      if (rows.length > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`nothing waited on ${sql}`);
  }

  /**
   * A scan's cursor of `instance` naming plan.md, and a transaction holding its row until `release`:
   * an erasure of the file's subject rewrites the cursor after deleting its episodes, so it waits
   * there, open — its deletes, tombstones and revoked keys not yet committed, writes kept out.
   */
  async function heldCursor(instance: string): Promise<{ release: () => Promise<void> }> {
    await canon.runtime.pool.query(`INSERT INTO connector_cursors (workspace_id, instance_id, cursor) VALUES ('default', $1, '{"files": {"plan.md": {"hash": "h1", "n": 1}}}')`, [instance]);
    const holder = await canon.runtime.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT 1 FROM connector_cursors WHERE workspace_id = 'default' AND instance_id = $1 FOR UPDATE", [instance]);
    } catch (err) {
      holder.release();
      throw err;
    }
    let open = true;
    return {
      // Once: a test's `finally` may call it again after a failed assertion.
      release: async () => {
        if (!open) return;
        open = false;
        try {
          await holder.query('COMMIT');
        } finally {
          holder.release();
        }
      },
    };
  }

  it('an erased key re-sent while the erasure commits is answered erased, not stored again', async () => {
    const subject = 'workspace:race:plan.md';
    const batch = { episodes: [ep('race-1', subject, 'codename', 'heron'), ep('race-2', subject, 'launch', 'May')] };
    expect((await canon.request('/v1/episodes', { key: owner, json: batch })).status).toBe(200);
    const held = await heldCursor('workspace:race');
    try {
      const erasing = canon.request(`/v1/subjects/${enc(subject)}`, { method: 'DELETE', key: owner });
      await waitingOn('UPDATE connector_cursors');
      const resent = canon.request('/v1/episodes', { key: owner, json: batch });
      await new Promise((r) => setTimeout(r, 300));
      await held.release();
      expect((await erasing).status).toBe(200);
      expect(await (await resent).json()).toMatchObject({ created: 0, erased: 2 });
    } finally {
      await held.release();
    }
    const { rows } = await canon.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episodes WHERE subject = $1', [subject]);
    expect(rows[0]!.n).toBe(0);
  });

  it("a person's batch under way when their erasure starts is erased with the rest; one sent after finds the key revoked", async () => {
    const victim = (await canon.key('member', { user: 'vic' })).key;
    const subject = 'service:vic-notes';
    expect((await canon.request('/v1/episodes', { key: victim, json: ep('vic-0', subject, 'desk', 'B12') })).status).toBe(200);
    // Another transaction inserting the batch's last key holds the batch mid-way, after its BEGIN.
    const holder = await canon.runtime.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, kind, body, occurred_at, occurred_at_defaulted, lineage, snapshot, actor_role, content_hash)
         VALUES ('default', gen_random_uuid(), 'api', 'vic-9', $1, 'workspace', 'claim', '{}', now(), true, 'api:vic-9', false, 'owner', 'x')`,
        [subject],
      );
      const inFlight = canon.request('/v1/episodes', { key: victim, json: { episodes: [ep('vic-1', subject, 'phone', '555-0101'), ep('vic-9', subject, 'badge', 'V-9')] } });
      await waitingOn('INSERT INTO episodes');
      const erasing = canon.request('/v1/erasures', { key: owner, json: { user: 'vic' } });
      await new Promise((r) => setTimeout(r, 300));
      await holder.query('ROLLBACK');
      expect((await inFlight).status).toBe(200);
      const erasure = await (await erasing).json();
      expect(erasure).toMatchObject({ episodes: 3, keys_revoked: 1 });
    } finally {
      holder.release();
    }
    const { rows } = await canon.runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM episodes WHERE actor_user = 'vic'");
    expect(rows[0]!.n).toBe(0);
    expect((await canon.request('/v1/episodes', { key: victim, json: ep('vic-2', subject, 'desk', 'C3') })).status).toBe(401);
  });

  it("a person's write that waited for their erasure finds the key revoked: 401, nothing written in their name", async () => {
    const wren = (await canon.key('member', { user: 'wren' })).key;
    const subject = 'workspace:wren-notes:plan.md';
    expect((await canon.request('/v1/episodes', { key: wren, json: ep('wren-0', subject, 'codename', 'kestrel') })).status).toBe(200);
    // Once the subject is gone the erasure rewrites the scan's cursor, and waits there.
    const held = await heldCursor('workspace:wren-notes');
    try {
      const erasing = canon.request('/v1/erasures', { key: owner, json: { user: 'wren' } });
      await waitingOn('UPDATE connector_cursors');
      // Authenticated now, while the key still stands; it waits at the closed workspace.
      const late = canon.request('/v1/episodes', { key: wren, json: ep('wren-1', 'service:wren-late', 'desk', 'D4') });
      await waitingOn('pg_advisory_xact_lock_shared');
      await held.release();
      expect(await (await erasing).json()).toMatchObject({ episodes: 1, keys_revoked: 1 });
      expect((await late).status).toBe(401);
    } finally {
      await held.release();
    }
    const { rows } = await canon.runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM episodes WHERE actor_user = 'wren'");
    expect(rows[0]!.n).toBe(0);
  });

  it('a maintainer may not erase a person who holds an owner key; an owner may, and the keys keep no label naming them', async () => {
    const boss = await canon.key('owner', { user: 'bossy' });
    await canon.runtime.pool.query("UPDATE api_keys SET label = 'bossy laptop' WHERE id = $1", [boss.principal.key_id]);
    expect((await canon.request('/v1/episodes', { key: boss.key, json: ep('bossy-1', 'service:db', 'primary', 'db-owner') })).status).toBe(200);
    const maintainer = (await canon.key('maintainer', { user: 'mae' })).key;
    const refused = await canon.request('/v1/erasures', { key: maintainer, json: { user: 'bossy' } });
    expect(refused.status).toBe(403);
    expect((await canon.request('/v1/episodes', { key: boss.key, json: ep('bossy-2', 'service:db', 'replica', 'db-2') })).status).toBe(200);
    const done = await canon.request('/v1/erasures', { key: owner, json: { user: 'bossy' } });
    expect(done.status).toBe(200);
    const { rows } = await canon.runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE label LIKE '%bossy%' OR user_id = 'bossy'");
    expect(rows[0]!.n).toBe(0);
  });
});
