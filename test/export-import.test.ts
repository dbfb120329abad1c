import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';
import type { Principal } from '@canon/runtime';

// One source workspace holding what an export must carry — several subjects, an open conflict, a
// link, an erasure, a personal episode, an episode without a time, a policy — exported once and
// imported into fresh databases, a partial one, a tampered and a truncated copy.

let source: TestCanon;
let owner: { key: string; principal: Principal };
let lines: string[];

const enc = encodeURIComponent;
const ep = (key: string, subject: string, predicate: string, value: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject,
  occurred_at: '2026-03-01T09:00:00Z',
  kind: 'claim',
  body: { claims: [{ predicate, value }] },
  ...extra,
});

async function post(canon: TestCanon, key: string, body: unknown): Promise<void> {
  const res = await canon.request('/v1/episodes?compile=wait', { key, json: body });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function exportLines(canon: TestCanon, principal: Principal, params: { subject?: string } = {}): Promise<string[]> {
  const opened = await canon.runtime.exportLog(principal, params);
  const out: string[] = [];
  for await (const line of opened.lines) out.push(line);
  return out;
}

async function* from(list: readonly string[]): AsyncGenerator<string> {
  yield* list;
}

async function stateHashes(canon: TestCanon, principal: Principal): Promise<Record<string, string>> {
  const { rows } = await canon.runtime.pool.query<{ subject: string; state_hash: string }>(
    'SELECT subject, state_hash FROM subjects WHERE workspace_id = $1 ORDER BY subject',
    [principal.workspace_id],
  );
  return Object.fromEntries(rows.map((r) => [r.subject, r.state_hash]));
}

async function episodeCount(canon: TestCanon, workspace = 'default'): Promise<number> {
  const { rows } = await canon.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episodes WHERE workspace_id = $1', [workspace]);
  return rows[0]!.n;
}

beforeAll(async () => {
  source = await startTestCanon({ queue: false });
  owner = await source.key('owner', { user: 'olivia' });
  const mia = (await source.key('member', { user: 'mia' })).key;
  const max = (await source.key('member', { user: 'max' })).key;
  // Two keys without a user: their claims' authors are the keys themselves.
  const bot1 = (await source.key('agent')).key;
  const bot2 = (await source.key('agent')).key;

  expect((await source.request('/v1/policies', { method: 'PUT', key: owner.key, json: { predicates: { region: { cardinality: 'one', mode: 'supersede', min_role: 'member' } } } })).status).toBe(200);
  await post(source, owner.key, { episodes: [ep('b-1', 'service:billing', 'deploy_day', 'Tuesday'), ep('b-2', 'service:billing', 'region', 'eu-west-1')] });
  // Equal standing, no time, no lineage: an open conflict.
  await post(source, mia, ep('p-1', 'customer:acme', 'plan', 'gold'));
  await post(source, max, ep('p-2', 'customer:acme', 'plan', 'silver'));
  // The same author later is a change; two authors would dispute: authorship must survive.
  await post(source, bot1, ep('a-1', 'service:agents', 'owner_team', 'core', { occurred_at: '2026-03-01T09:00:00Z' }));
  await post(source, bot1, ep('a-2', 'service:agents', 'owner_team', 'platform', { occurred_at: '2026-03-02T09:00:00Z' }));
  await post(source, bot2, ep('a-3', 'service:agents', 'oncall', 'ann'));
  // No occurred_at: the log defaults it to the ingest time, which the import must keep.
  await post(source, mia, { idempotency_key: 'n-1', subject: 'service:billing', body: { text: 'The billing queue holds 40 jobs.' } });
  // Personal episodes: the exporting owner's own travels; another user's is visible to that user only.
  await post(source, owner.key, ep('me-1', 'person:olivia', 'editor', 'vim', { scope: 'personal' }));
  await post(source, mia, ep('me-2', 'person:mia', 'editor', 'emacs', { scope: 'personal' }));
  // A link between two memories of one subject.
  await post(source, owner.key, { episodes: [ep('l-1', 'service:checkout', 'sla', '99.9%'), ep('l-2', 'service:checkout', 'availability', '99.9%')] });
  const mems = (await (await source.request(`/v1/subjects/${enc('service:checkout')}/memories`, { key: owner.key })).json()).memories as Array<{ id: string }>;
  expect(mems).toHaveLength(2);
  const link = await source.request('/v1/links', { key: owner.key, json: { memories: [mems[0]!.id, mems[1]!.id], same: true, idempotency_key: 'link-1' } });
  expect(link.status, await link.clone().text()).toBe(200);
  // An erasure: its keys travel as tombstones, never as episodes.
  await post(source, owner.key, ep('g-1', 'customer:gone', 'plan', 'gold'));
  expect((await source.request(`/v1/subjects/${enc('customer:gone')}`, { method: 'DELETE', key: owner.key })).status).toBe(200);

  lines = await exportLines(source, owner.principal);
});
afterAll(() => source.close());

describe('export', () => {
  it('writes a header, the policies, the tombstones, the episodes in commit order and a manifest', () => {
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r['type'])).toEqual([
      'header',
      'policies',
      'tombstone',
      ...Array.from({ length: records.length - 4 }, () => 'episode'),
      'manifest',
    ]);
    expect(records[0]).toMatchObject({ format: 'canon-export', version: 1, workspace: 'default', selection: { all: true } });
    expect(records[1]).toMatchObject({ policies: { predicates: { region: { mode: 'supersede' } } } });
    const episodes = records.filter((r) => r['type'] === 'episode');
    expect(episodes.map((e) => e['idempotency_key'])).not.toContain('g-1');
    expect(episodes.find((e) => e['idempotency_key'] === 'me-1')).toMatchObject({ scope: 'personal', owner: 'olivia', actor: { role: 'owner', user: 'olivia' } });
    expect(episodes.map((e) => e['idempotency_key'])).not.toContain('me-2');
    expect(episodes.find((e) => e['idempotency_key'] === 'n-1')).toMatchObject({ occurred_at_defaulted: true });
    const positions = episodes.map((e) => String(e['log_position']).split('.').map(BigInt));
    for (let i = 1; i < positions.length; i++) {
      const [t0, p0] = positions[i - 1]!;
      const [t1, p1] = positions[i]!;
      expect(t1! > t0! || (t1 === t0 && p1! > p0!)).toBe(true);
    }
    const manifest = records.at(-1)!;
    expect(manifest).toMatchObject({ counts: { episodes: episodes.length, tombstones: 1, policies: 1, lines: records.length - 1 } });
    expect((manifest['subjects'] as Array<{ subject: string }>).map((s) => s.subject)).toEqual([
      'customer:acme',
      'person:olivia',
      'service:agents',
      'service:billing',
      'service:checkout',
    ]);
  });

  it('exports one subject, and refuses a member', async () => {
    const one = await exportLines(source, owner.principal, { subject: 'customer:acme' });
    const records = one.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.filter((r) => r['type'] === 'episode').map((r) => r['idempotency_key'])).toEqual(['p-1', 'p-2']);
    const member = await source.key('member', { user: 'mia' });
    await expect(source.runtime.exportLog(member.principal, {})).rejects.toMatchObject({ type: 'forbidden' });
    await expect(source.runtime.exportLog(owner.principal, { subject: 'nothing:here' })).rejects.toMatchObject({ type: 'not_found' });
  });
});

describe('import', () => {
  it('into a fresh database gives the same state_hash per subject, verifies, and a second import changes nothing', async () => {
    const target = await startTestCanon({ queue: false });
    try {
      const me = await target.key('owner', { user: 'olivia' });
      const first = await target.runtime.importLog(me.principal, from(lines));
      expect(first).toMatchObject({ ok: true, policies: 'applied', duplicates: 0, erased: 0, tombstones: { read: 1, added: 1 } });
      expect(first.created).toBe(first.episodes);
      const { 'person:mia': _hers, ...exported } = await stateHashes(source, owner.principal);
      expect(await stateHashes(target, me.principal)).toEqual(exported);
      for (const s of first.subjects) {
        const report = await target.runtime.verify(me.principal, s.subject);
        expect(report.ok, `${s.subject}: ${JSON.stringify(report.differences)}`).toBe(true);
      }
      // Original actors and times.
      const { rows } = await target.runtime.pool.query(
        `SELECT idempotency_key, actor_role, actor_user, owner, occurred_at, occurred_at_defaulted FROM episodes WHERE idempotency_key IN ('me-1', 'n-1') ORDER BY 1`,
      );
      const { rows: there } = await source.runtime.pool.query(
        `SELECT idempotency_key, actor_role, actor_user, owner, occurred_at, occurred_at_defaulted FROM episodes WHERE idempotency_key IN ('me-1', 'n-1') ORDER BY 1`,
      );
      expect(rows).toEqual(there);
      // Erased stays erased: the tombstone answers a re-sync of the erased key.
      const again = await target.runtime.ingest(me.principal, [ep('g-1', 'customer:gone', 'plan', 'gold')]);
      expect(again.items[0]!.status).toBe('erased');

      const second = await target.runtime.importLog(me.principal, from(lines));
      expect(second).toMatchObject({ ok: true, created: 0, duplicates: first.episodes, policies: 'same', tombstones: { added: 0 } });
      expect(await stateHashes(target, me.principal)).toEqual(exported);
    } finally {
      await target.close();
    }
  });

  it('into a database that holds part of it, and refuses a key it holds with other content, naming the line', async () => {
    const target = await startTestCanon({ queue: false });
    try {
      const me = await target.key('owner');
      const part = await exportLines(source, owner.principal, { subject: 'customer:acme' });
      expect((await target.runtime.importLog(me.principal, from(part))).created).toBe(2);
      const whole = await target.runtime.importLog(me.principal, from(lines));
      expect(whole).toMatchObject({ ok: true, duplicates: 2 });
      expect(whole.created).toBe(whole.episodes - 2);

      const other = await startTestCanon({ queue: false });
      try {
        const them = await other.key('owner');
        await other.runtime.ingest(them.principal, [ep('p-2', 'customer:acme', 'plan', 'bronze')]);
        const line = lines.findIndex((l) => l.includes('"idempotency_key":"p-2"')) + 1;
        await expect(other.runtime.importLog(them.principal, from(lines))).rejects.toMatchObject({ type: 'key_conflict', details: { line } });
        expect(await episodeCount(other)).toBe(1);
      } finally {
        await other.close();
      }
    } finally {
      await target.close();
    }
  });

  it('refuses a tampered line and a truncated file, naming the line, with nothing of the batch written', async () => {
    const target = await startTestCanon({ queue: false });
    try {
      const me = await target.key('owner');
      const at = lines.findIndex((l) => l.includes('"idempotency_key":"b-1"'));
      const tampered = [...lines];
      tampered[at] = tampered[at]!.replace('Tuesday', 'Friday');
      await expect(target.runtime.importLog(me.principal, from(tampered))).rejects.toMatchObject({ type: 'export_invalid', details: { line: at + 1 } });
      expect(await episodeCount(target)).toBe(0);

      // A line removed with its hash intact: only the manifest's digest can tell.
      const removed = lines.filter((_, i) => i !== at);
      await expect(target.runtime.importLog(me.principal, from(removed))).rejects.toMatchObject({ type: 'export_invalid', details: { line: removed.length } });

      const truncated = lines.slice(0, -3);
      const err = await target.runtime.importLog(me.principal, from(truncated)).catch((e: unknown) => e);
      expect(err).toMatchObject({ type: 'export_invalid', details: { line: truncated.length } });
      expect((err as Error).message).toContain('truncated');
      expect(await episodeCount(target)).toBe(0);
      // Neither the tombstones nor the policies that came before the refused batch.
      const { rows } = await target.runtime.pool.query<{ t: number; p: number }>(
        'SELECT (SELECT count(*)::int FROM erased_keys) AS t, (SELECT count(*)::int FROM policies) AS p',
      );
      expect(rows[0]).toEqual({ t: 0, p: 0 });
    } finally {
      await target.close();
    }
  });

  it('says of a manifest whose state_hash the log does not give that it may have been changed, not only that episodes are missing', async () => {
    const target = await startTestCanon({ queue: false });
    try {
      const me = await target.key('owner');
      const manifest = JSON.parse(lines.at(-1)!);
      const lied = manifest.subjects.find((s: { subject: string }) => s.subject === 'service:billing');
      lied.state_hash = 'f'.repeat(64);
      const result = await target.runtime.importLog(me.principal, from([...lines.slice(0, -1), JSON.stringify(manifest)]));
      const billing = result.subjects.find((s) => s.subject === 'service:billing')!;
      expect(billing).toMatchObject({ ok: false, expected: 'f'.repeat(64) });
      expect(billing.reason).toContain('the manifest was changed after the export');
      expect(result.subjects.filter((s) => s.subject !== 'service:billing').every((s) => s.ok)).toBe(true);
    } finally {
      await target.close();
    }
  });

  it("says of a subject whose episodes held a secret the export's Canon missed that they were written here redacted, and counts them", async () => {
    const older = await source.key('owner', { workspace: 'older-log' });
    await post(source, older.key, ep('s-0', 'service:legacy', 'deploy_day', 'Tuesday'));
    // Stored by an earlier Canon that had no rule for it: the text as sent, then compiled.
    await source.runtime.pool.query(
      `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body, occurred_at, occurred_at_defaulted, observed_at, sequence, lineage, snapshot, actor_role, actor_user, source_ref, content_hash, actor_key)
       SELECT workspace_id, gen_random_uuid(), source, 's-1', subject, scope, owner, 'message', $1::jsonb, occurred_at, occurred_at_defaulted, observed_at, sequence, 'api:s-1', snapshot, actor_role, actor_user, source_ref, 'old-hash', actor_key
       FROM episodes WHERE workspace_id = 'older-log' AND idempotency_key = 's-0'`,
      [JSON.stringify({ text: 'The deploy token is in the runbook: export GITHUB_TOKEN=c0ffee0ddba11f00dfeedface0123456789' })],
    );
    await source.runtime.pool.query(
      "INSERT INTO pending (workspace_id, subject, episode_id, scope, owner) SELECT workspace_id, subject, id, scope, owner FROM episodes WHERE workspace_id = 'older-log' AND idempotency_key = 's-1'",
    );
    await source.runtime.compile(older.principal, { subject: 'service:legacy' });
    const exported = await exportLines(source, older.principal);
    const target = await startTestCanon({ queue: false });
    try {
      const me = await target.key('owner', { workspace: 'older-log' });
      const result = await target.runtime.importLog(me.principal, from(exported));
      expect(result).toMatchObject({ created: 2, redacted: 1 });
      const legacy = result.subjects.find((s) => s.subject === 'service:legacy')!;
      expect(legacy.ok).toBe(false);
      expect(legacy.reason).toBe("1 of its episodes held a secret the rules here find, written here redacted (the export's Canon stored them as they were)");
    } finally {
      await target.close();
    }
  });

  it('is for owners only; refuses other policies unless told to keep them; refuses tombstones bound to another workspace', async () => {
    const target = await startTestCanon({ queue: false });
    try {
      const maintainer = await target.key('maintainer');
      await expect(target.runtime.importLog(maintainer.principal, from(lines))).rejects.toMatchObject({ type: 'forbidden' });

      const other = await target.key('owner', { workspace: 'elsewhere' });
      await expect(target.runtime.importLog(other.principal, from(lines))).rejects.toMatchObject({ type: 'workspace_mismatch', message: expect.stringMatching(/import it with a key of workspace "[^"]+" \(`canon keys create --workspace [^ ]+ --role owner`\)/) });
      expect(await episodeCount(target, 'elsewhere')).toBe(0);

      const me = await target.key('owner');
      expect((await target.request('/v1/policies', { method: 'PUT', key: me.key, json: { predicates: { region: { cardinality: 'one', mode: 'flag', min_role: 'owner' } } } })).status).toBe(200);
      await expect(target.runtime.importLog(me.principal, from(lines))).rejects.toMatchObject({ type: 'policies_differ' });
      expect(await episodeCount(target)).toBe(0);
      const kept = await target.runtime.importLog(me.principal, from(lines), { keepPolicies: true });
      expect(kept.policies).toBe('kept');
      const billing = kept.subjects.find((s) => s.subject === 'service:billing')!;
      expect(billing.ok).toBe(false);
      expect(billing.reason).toContain('the policies differ');
      expect(kept.subjects.filter((s) => s.subject !== 'service:billing').every((s) => s.ok)).toBe(true);
    } finally {
      await target.close();
    }
  });
});

describe('into another workspace', () => {
  it('keeps a link: the linked memories are one there too, with the same state_hash', async () => {
    // A link names its two fact keys, and a fact key names its workspace: read as written, a link
    // exported from one workspace joined nothing in another, and a fact it had settled went back
    // to its old value there.
    const canon = await startTestCanon({ queue: false });
    try {
      const here = await canon.key('owner', { user: 'olivia' });
      await post(canon, here.key, { episodes: [ep('l-1', 'service:checkout', 'sla', '99.9%'), ep('l-2', 'service:checkout', 'availability', '99.5%', { occurred_at: '2026-03-02T09:00:00Z' })] });
      const listed = (await (await canon.request(`/v1/subjects/${enc('service:checkout')}/memories`, { key: here.key })).json()).memories as Array<{ id: string }>;
      const link = await canon.request('/v1/links', { key: here.key, json: { memories: [listed[0]!.id, listed[1]!.id], same: true, idempotency_key: 'link-1' } });
      expect(link.status, await link.clone().text()).toBe(200);
      const exported = await exportLines(canon, here.principal);
      const other = await canon.key('owner', { workspace: 'team2', user: 'olivia' });
      const imported = await canon.runtime.importLog(other.principal, from(exported));
      expect(imported.subjects.map((s) => [s.subject, s.ok, s.reason ?? null]), JSON.stringify(imported)).toEqual([['service:checkout', true, null]]);
      expect(await stateHashes(canon, other.principal)).toEqual(await stateHashes(canon, here.principal));
      const mems = (await (await canon.request(`/v1/subjects/${enc('service:checkout')}/memories`, { key: other.key })).json()).memories as Array<{ linked: unknown[]; current: Array<{ value: unknown }> }>;
      expect(mems).toHaveLength(1);
      expect(mems[0]!.linked).toHaveLength(1);
      expect(mems[0]!.current.map((v) => v.value)).toEqual(['99.5%']);
    } finally {
      await canon.close();
    }
  });
});

describe('over HTTP', () => {
  it('GET /v1/export streams the export; POST /v1/import takes it; errors are problems with stable types', async () => {
    const res = await source.request('/v1/export', { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const text = await res.text();
    const streamed = text.trimEnd().split('\n');
    expect(streamed).toHaveLength(lines.length);
    expect(res.headers.get('x-canon-episodes')).toBe(String(lines.filter((l) => l.startsWith('{"type":"episode"')).length));
    const one = await source.request(`/v1/export?subject=${enc('customer:acme')}`, { key: owner.key });
    expect((await one.text()).split('\n').filter((l) => l.includes('"type":"episode"'))).toHaveLength(2);

    const member = (await source.key('member', { user: 'mia' })).key;
    const refused = await source.request('/v1/export', { key: member });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect((await refused.json()).type).toBe('urn:canon:problem:forbidden');

    const target = await startTestCanon({ queue: false });
    try {
      const me = (await target.key('owner')).key;
      const maintainer = (await target.key('maintainer')).key;
      const ndjson = { 'content-type': 'application/x-ndjson' };
      const denied = await target.request('/v1/import', { method: 'POST', key: maintainer, headers: ndjson, body: text });
      expect(denied.status).toBe(403);
      const wrongType = await target.request('/v1/import', { method: 'POST', key: me, headers: { 'content-type': 'text/plain' }, body: text });
      expect(wrongType.status).toBe(415);
      const tampered = streamed.map((l) => (l.includes('"idempotency_key":"p-1"') ? l.replace('gold', 'platinum') : l));
      const bad = await target.request('/v1/import', { method: 'POST', key: me, headers: ndjson, body: tampered.join('\n') });
      expect(bad.status).toBe(400);
      const problem = await bad.json();
      expect(problem).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: streamed.findIndex((l) => l.includes('"idempotency_key":"p-1"')) + 1 });

      const ok = await target.request('/v1/import', { method: 'POST', key: me, headers: ndjson, body: text });
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(await ok.json()).toMatchObject({ ok: true, duplicates: 0, policies: 'applied' });
    } finally {
      await target.close();
    }

    const doc = await (await source.request('/openapi.json')).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/export', '/v1/import']));
  });
});
