import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@canon/runtime';
import { canonicalJson } from '@canon/core';
import { TIMELINE } from '@canon/store';
import { startTestCanon, type TestCanon } from '@canon/testing';

// A key restated without end keeps the final blocks of its timeline (values by 64, decisions by
// 256) in memory_blocks, and its row holds the head past them (docs/scaling.md). Where the blocks
// are kept is the store's business: every reader sees the whole timeline, and a key compiled
// claim by claim is, block for block, the key one compile of the whole log writes.

let canon: TestCanon;
const keys = new Map<string, Principal>();
const bearer = new Map<string, string>();
const WORKSPACES = ['once', 'each', 'late', 'verify', 'erase', 'private', 'link', 'ov-once', 'ov-each', 'one-once', 'one-each', 'deep-once', 'deep-each'];
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const workspace of WORKSPACES)
    for (const [user, role] of [
      ['ann', 'owner'],
      ['bob', 'member'],
    ] as const)
    {
      const made = await canon.key(role, { workspace, user });
      keys.set(`${workspace}/${user}`, made.principal);
      bearer.set(`${workspace}/${user}`, made.key);
    }
});
afterAll(() => canon.close());

const SUBJECT = 'service:billing';
const at = (hour: number) => new Date(Date.UTC(2025, 0, 1) + hour * 3_600_000).toISOString();

/** The owner states the deploy day twice, then changes it: 140 values, 280 claims, hour by hour. */
const CHANGES = 140;
const episode = (workspace: string, i: number, extra: { scope?: 'personal' } = {}) => ({
  idempotency_key: `${workspace}-${i}`,
  subject: SUBJECT,
  occurred_at: at(i + 1),
  ...extra,
  body: { claims: [{ predicate: 'deploy day', value: `day ${Math.floor(i / 2)}` }] },
});

async function ingest(workspace: string, from: number, to: number, user = 'ann', extra: { scope?: 'personal' } = {}) {
  const owner = keys.get(`${workspace}/${user}`)!;
  for (let i = from; i < to; i += 100) {
    const batch = Array.from({ length: Math.min(100, to - i) }, (_, j) => episode(workspace, i + j, extra));
    await canon.runtime.ingest(owner, batch);
  }
}
/** ann's episodes `from` to `to`, hour by hour, each stating the deploy day `valueOf` gives; keys `<workspace>-<tag><i>`. */
async function ingestDays(workspace: string, tag: string, from: number, to: number, valueOf: (i: number) => string) {
  const owner = keys.get(`${workspace}/ann`)!;
  for (let i = from; i < to; i += 100) {
    const batch = Array.from({ length: Math.min(100, to - i) }, (_, j) => ({
      idempotency_key: `${workspace}-${tag}${i + j}`,
      subject: SUBJECT,
      occurred_at: at(i + j + 1),
      body: { claims: [{ predicate: 'deploy day', value: valueOf(i + j) }] },
    }));
    await canon.runtime.ingest(owner, batch);
  }
}
const compile = (workspace: string, user = 'ann') => canon.runtime.compile(keys.get(`${workspace}/${user}`)!, { subject: SUBJECT });
const q = async <T extends Record<string, unknown>>(text: string, params: unknown[]) => (await canon.runtime.pool.query<T>(text, params)).rows;

/** What is stored of the subject, assembled, with every workspace-specific spelling taken out. */
async function stored(workspace: string) {
  const memories = await q(`SELECT key, revision, status, summary::jsonb #- '{memory,etag}' AS summary, ${TIMELINE} FROM memories WHERE workspace_id = $1 AND subject = $2`, [workspace, SUBJECT]);
  const values = await q('SELECT ord, value, status, valid_from, valid_to, standing, support FROM memory_values WHERE workspace_id = $1 AND subject = $2 ORDER BY ord', [
    workspace,
    SUBJECT,
  ]);
  const evidence = await q('SELECT count(*)::int AS n FROM evidence WHERE workspace_id = $1', [workspace]);
  const decisions = await q('SELECT idempotency_key, claim_index, kind, target, reason FROM claim_decisions WHERE workspace_id = $1 ORDER BY idempotency_key, claim_index', [
    workspace,
  ]);
  const text = JSON.stringify({ memories, values, evidence, decisions }, (k, v: unknown) => (k === 'episode_id' || k === 'ingested_at' || k === 'memory_id' || k === 'id' ? undefined : v));
  return JSON.parse(text.replaceAll(workspace, 'WS')) as unknown;
}

/** The hashes, which name the workspace: compared within one. */
const hashes = (workspace: string) =>
  q("SELECT m.etag, m.digest, s.state_hash FROM memories m JOIN subjects s USING (workspace_id, subject) WHERE m.workspace_id = $1", [workspace]);

async function blocks(workspace: string) {
  const [row] = await q<{ values: number; decisions: number; head_values: number; head_decisions: number; sealed: unknown }>(
    `SELECT (SELECT count(*)::int FROM memory_blocks b WHERE b.workspace_id = $1 AND b.kind = 'values') AS values,
            (SELECT count(*)::int FROM memory_blocks b WHERE b.workspace_id = $1 AND b.kind = 'decisions') AS decisions,
            json_array_length(timeline->'values') AS head_values, json_array_length(timeline->'decisions') AS head_decisions, sealed
       FROM memories WHERE workspace_id = $1`,
    [workspace],
  );
  return row!;
}

describe('a timeline kept in blocks', () => {
  it('compiled claim by claim, seals the same history one compile of the whole log writes, and every reader sees it whole', async () => {
    await ingest('once', 0, 2 * CHANGES);
    await compile('once');
    // Ten compiles of 28 claims each: every one resumes from the head and seals what became final.
    for (let i = 0; i < 2 * CHANGES; i += 28) {
      await ingest('each', i, i + 28);
      await compile('each');
    }
    const once = await stored('once');
    expect(await stored('each')).toEqual(once);
    // 139 superseded values and the open one: two full blocks of values sealed, the third holds
    // the open value; 279 of the 280 decisions are about claims no open value stands on.
    for (const workspace of ['once', 'each']) {
      expect(await blocks(workspace)).toMatchObject({ values: 2, decisions: 1, head_values: CHANGES - 128, head_decisions: 2 * CHANGES - 256 });
    }
    const incremental = await hashes('each');
    await canon.runtime.rebuild(keys.get('each/ann')!, SUBJECT);
    expect(await stored('each')).toEqual(once);
    expect(await hashes('each')).toEqual(incremental);

    // The readers: the memory's detail holds its whole history, and a view of an instant inside a
    // sealed block sees the value that held then.
    const owner = keys.get('each/ann')!;
    const [{ id }] = (await q<{ id: string }>("SELECT id FROM memories WHERE workspace_id = 'each'", [])) as [{ id: string }];
    const detail = await canon.runtime.memory(owner, id, {});
    expect(detail.timeline.values).toHaveLength(CHANGES);
    expect(detail.timeline.decisions).toHaveLength(2 * CHANGES);
    expect(detail.view.current.map((c) => c.value)).toEqual([`day ${CHANGES - 1}`]);
    const past = await canon.runtime.memory(owner, id, { as_of: at(10) });
    expect(past.view.current.map((c) => c.value)).toEqual(['day 4']);
    const page = await canon.runtime.memories(owner, SUBJECT, { as_of: at(100) });
    expect(JSON.stringify(page)).toContain('"day 49"');
    expect((await canon.runtime.verify(owner, SUBJECT)).ok).toBe(true);
    // Each block is stored as the canonical JSON it was written as, byte for byte: split out of
    // the one JSON array it travelled in, nothing re-spaced or re-escaped.
    const items = await q<{ items: string }>("SELECT items::text AS items FROM memory_blocks WHERE workspace_id = 'each' ORDER BY kind, n", []);
    expect(items).toHaveLength(3);
    for (const { items: text } of items) expect(text).toBe(canonicalJson(JSON.parse(text)));
  });

  it('a claim that lands inside the sealed blocks refolds the key from all its claims and cuts its blocks afresh', async () => {
    await ingest('late', 0, 2 * CHANGES);
    await compile('late');
    // Stated now of hour 20.5: it belongs inside the first sealed block of values.
    await canon.runtime.ingest(keys.get('late/ann')!, [
      { idempotency_key: 'late-backdated', subject: SUBJECT, occurred_at: new Date(Date.parse(at(20)) + 1_800_000).toISOString(), body: { claims: [{ predicate: 'deploy day', value: 'backdated' }] } },
    ]);
    await compile('late');
    expect(await blocks('late')).toMatchObject({ values: 2, decisions: 1, head_values: CHANGES + 1 - 128, head_decisions: 2 * CHANGES + 1 - 256 });
    const incremental = await stored('late');
    const incrementalHashes = await hashes('late');
    expect(JSON.stringify(incremental)).toContain('"backdated"');
    await canon.runtime.rebuild(keys.get('late/ann')!, SUBJECT);
    expect(await stored('late')).toEqual(incremental);
    expect(await hashes('late')).toEqual(incrementalHashes);
  });

  it('seals a value overruled early with the rest, and a later restatement of it still gives the whole fold', async () => {
    // bob (a member) names another day under the owner's first one: overruled, kept as evidence.
    const bob = (workspace: string, n: number, hour: number) =>
      canon.runtime.ingest(keys.get(`${workspace}/bob`)!, [
        { idempotency_key: `${workspace}-bob-${n}`, subject: SUBJECT, occurred_at: at(hour), body: { claims: [{ predicate: 'deploy day', value: 'day never' }] } },
      ]);
    await ingest('ov-once', 0, 2 * CHANGES);
    await bob('ov-once', 0, 1.5);
    await compile('ov-once');
    await ingest('ov-each', 0, 2);
    await bob('ov-each', 0, 1.5);
    await compile('ov-each');
    for (let i = 2; i < 2 * CHANGES; i += 28) {
      await ingest('ov-each', i, Math.min(i + 28, 2 * CHANGES));
      await compile('ov-each');
    }
    expect(await stored('ov-each')).toEqual(await stored('ov-once'));
    // The overruled value went into the first sealed block: the head holds what the plain history's does.
    const sealed = await blocks('ov-each');
    expect(sealed).toMatchObject({ values: 2, head_values: CHANGES + 1 - 128 });
    expect((sealed.sealed as { overruled?: string[] }).overruled).toEqual(['"day never"']);
    // bob again, after everything: his claim joins the sealed overruled value, so the key folds from all its claims.
    await bob('ov-once', 1, 2 * CHANGES + 5);
    await compile('ov-once');
    await bob('ov-each', 1, 2 * CHANGES + 5);
    await compile('ov-each');
    const once = await stored('ov-once');
    expect(await stored('ov-each')).toEqual(once);
    expect(JSON.stringify(once)).toContain('"day never"');
    const incremental = await hashes('ov-each');
    await canon.runtime.rebuild(keys.get('ov-each/ann')!, SUBJECT);
    expect(await hashes('ov-each')).toEqual(incremental);
    expect(await stored('ov-each')).toEqual(once);
    expect((await canon.runtime.verify(keys.get('ov-each/ann')!, SUBJECT)).ok).toBe(true);
  });

  it('keeps the evidence of a value restated without end in blocks of its own, and a change of value cuts them afresh', async () => {
    // ann restates one day 600 times, an episode each: one open value, 600 pieces of evidence.
    const restate = (workspace: string, from: number, to: number, value = 'Tuesday') => ingestDays(workspace, 'r', from, to, () => value);
    await restate('one-once', 0, 600);
    await compile('one-once');
    for (let i = 0; i < 600; i += 50) {
      await restate('one-each', i, i + 50);
      await compile('one-each');
    }
    expect(await stored('one-each')).toEqual(await stored('one-once'));
    const evidenceBlocks = (workspace: string) =>
      q<{ kind: string; n: number; items: number }>("SELECT kind, n, json_array_length(items) AS items FROM memory_blocks WHERE workspace_id = $1 AND kind LIKE 'evidence:%' ORDER BY n", [workspace]);
    for (const workspace of ['one-once', 'one-each']) {
      // Two full blocks of its evidence and two of decisions kept apart; the row holds the rest.
      expect(await evidenceBlocks(workspace)).toEqual([
        { kind: 'evidence:0', n: 0, items: 256 },
        { kind: 'evidence:0', n: 1, items: 256 },
      ]);
      const [row] = await q<{ head_evidence: number; head_decisions: number }>(
        "SELECT json_array_length(timeline->'values'->0->'evidence') AS head_evidence, json_array_length(timeline->'decisions') AS head_decisions FROM memories WHERE workspace_id = $1",
        [workspace],
      );
      expect(row).toEqual({ head_evidence: 600 - 512, head_decisions: 600 - 512 });
    }
    // Every reader sees all of it: the detail, the summary's count, the evidence rows.
    const owner = keys.get('one-each/ann')!;
    const [{ id }] = (await q<{ id: string }>("SELECT id FROM memories WHERE workspace_id = 'one-each'", [])) as [{ id: string }];
    const detail = await canon.runtime.memory(owner, id, {});
    expect(detail.timeline.values[0]!.evidence).toHaveLength(600);
    expect(detail.timeline.values[0]!.support).toBe(600);
    expect(detail.view.current.map((c) => c.evidence_count)).toEqual([600]);
    const page = await canon.runtime.memories(owner, SUBJECT);
    expect(page.memories[0]!.current[0]!.evidence_count).toBe(600);
    expect((await canon.runtime.verify(owner, SUBJECT)).ok).toBe(true);

    // Another day: the value with sealed evidence ends, so the key folds from all its claims, and
    // the new value is restated from the head again.
    for (const workspace of ['one-once', 'one-each']) await restate(workspace, 600, 610, 'Friday');
    await compile('one-once');
    await compile('one-each');
    await restate('one-each', 610, 640, 'Friday');
    await restate('one-once', 610, 640, 'Friday');
    await compile('one-each');
    await compile('one-once');
    const once = await stored('one-once');
    expect(await stored('one-each')).toEqual(once);
    expect(JSON.stringify(once)).toContain('"Friday"');
    const incremental = await hashes('one-each');
    await canon.runtime.rebuild(owner, SUBJECT);
    expect(await hashes('one-each')).toEqual(incremental);
    expect(await stored('one-each')).toEqual(once);
    expect((await canon.runtime.verify(owner, SUBJECT)).ok).toBe(true);
    // The ended value keeps its evidence blocks; the new one has fewer than a block.
    expect((await evidenceBlocks('one-each')).map((b) => b.kind)).toEqual(['evidence:0', 'evidence:0']);
  });

  it('puts the evidence back of a value whose own block of values was later sealed too', async () => {
    // Day 0 restated 300 times (its evidence sealed by blocks), then 70 other days, one claim each:
    // the first block of 64 values, day 0's among them, ends and is sealed as well.
    const say = (workspace: string, from: number, to: number) => ingestDays(workspace, 'd', from, to, (i) => `day ${Math.max(0, i - 299)}`);
    await say('deep-once', 0, 370);
    await compile('deep-once');
    for (const [from, to] of [[0, 300], [300, 330], [330, 370]] as const) {
      await say('deep-each', from, to);
      await compile('deep-each');
    }
    for (const workspace of ['deep-once', 'deep-each']) {
      expect(await blocks(workspace)).toMatchObject({ values: 1 });
      const [{ id }] = (await q<{ id: string }>('SELECT id FROM memories WHERE workspace_id = $1', [workspace])) as [{ id: string }];
      const detail = await canon.runtime.memory(keys.get(`${workspace}/ann`)!, id, {});
      expect(detail.timeline.values[0]!.evidence).toHaveLength(300);
      expect((await canon.runtime.verify(keys.get(`${workspace}/ann`)!, SUBJECT)).ok).toBe(true);
    }
    expect(await stored('deep-each')).toEqual(await stored('deep-once'));
    // A change that folds the key from all its claims compares with, and rewrites, the whole.
    const incremental = await hashes('deep-each');
    await canon.runtime.rebuild(keys.get('deep-each/ann')!, SUBJECT);
    expect(await hashes('deep-each')).toEqual(incremental);
    expect(await stored('deep-each')).toEqual(await stored('deep-once'));
  });

  it('verify finds a sealed block that no longer says what the log does', async () => {
    await ingest('verify', 0, 2 * CHANGES);
    await compile('verify');
    const owner = keys.get('verify/ann')!;
    expect((await canon.runtime.verify(owner, SUBJECT)).ok).toBe(true);
    // The first sealed value's value, changed in place.
    await canon.runtime.pool.query(
      `UPDATE memory_blocks SET items = jsonb_set(items::jsonb, '{0,value}', '"Sunday"')::json WHERE workspace_id = 'verify' AND kind = 'values' AND n = 0`,
    );
    const report = await canon.runtime.verify(owner, SUBJECT);
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => d.what)).toContain('etag');
    await canon.runtime.rebuild(owner, SUBJECT);
    expect(await canon.runtime.verify(owner, SUBJECT)).toMatchObject({ ok: true, differences: [] });
    // The blocks' items sound, their stored hash not: the next resumed compile would hash wrong.
    await canon.runtime.pool.query(
      `UPDATE memories SET sealed = jsonb_set(sealed::jsonb, '{values,1,state}', to_jsonb(repeat('0', 64)))::json WHERE workspace_id = 'verify'`,
    );
    expect((await canon.runtime.verify(owner, SUBJECT)).differences.map((d) => d.what)).toEqual(['sealed blocks']);
  });

  it('joins a link: the linked group folds from all its claims, and the memory that is left is a rebuild\'s', async () => {
    await ingest('link', 0, 2 * CHANGES);
    await canon.runtime.ingest(keys.get('link/ann')!, [
      { idempotency_key: 'link-other', subject: SUBJECT, occurred_at: at(2 * CHANGES + 5), body: { claims: [{ predicate: 'deploy weekday', value: 'Friday' }] } },
    ]);
    await compile('link');
    const ids = await q<{ id: string; predicate: string }>("SELECT id, predicate FROM memories WHERE workspace_id = 'link' ORDER BY predicate", []);
    expect(ids.map((r) => r.predicate)).toEqual(['deploy day', 'deploy weekday']);
    expect((await blocks('link')).values).toBe(2);
    const res = await canon.request('/v1/links', {
      key: bearer.get('link/ann')!,
      json: { memories: ids.map((r) => r.id), same: true, idempotency_key: 'join-deploy-keys', reason: 'one schedule' },
    });
    expect(res.status).toBeLessThan(300);
    await compile('link');
    const linked = await stored('link');
    const linkedHashes = await hashes('link');
    // One memory is left, with the other key's claim in its history and the blocks cut afresh.
    expect(linkedHashes).toHaveLength(1);
    expect(JSON.stringify(linked)).toContain('"Friday"');
    const left = await q<{ memory_id: string }>("SELECT DISTINCT memory_id FROM memory_blocks WHERE workspace_id = 'link'", []);
    expect(left).toHaveLength(1);
    const owner = keys.get('link/ann')!;
    expect(await canon.runtime.verify(owner, SUBJECT)).toMatchObject({ ok: true, differences: [] });
    await canon.runtime.rebuild(owner, SUBJECT);
    expect(await stored('link')).toEqual(linked);
    expect(await hashes('link')).toEqual(linkedHashes);
  });

  it('goes with its memory: an erased subject leaves no block', async () => {
    await ingest('erase', 0, 2 * CHANGES);
    await compile('erase');
    expect((await blocks('erase')).values).toBe(2);
    const res = await canon.request(`/v1/subjects/${encodeURIComponent(SUBJECT)}`, { method: 'DELETE', key: (await canon.key('owner', { workspace: 'erase', user: 'ann' })).key });
    expect(res.status).toBe(200);
    expect(await q("SELECT count(*)::int AS n FROM memory_blocks WHERE workspace_id = 'erase'", [])).toEqual([{ n: 0 }]);
  });

  it('is seen by whoever may see its memory: another workspace and, for a personal memory, another user see none', async () => {
    await ingest('private', 0, 2 * CHANGES, 'bob', { scope: 'personal' });
    await compile('private', 'bob');
    expect((await blocks('private')).values).toBe(2);
    const visible = async (workspace: string, user: string) => {
      const client = await canon.runtime.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL ROLE canon_app');
        await client.query("SELECT set_config('canon.workspace_id', $1, true), set_config('canon.user', $2, true)", [workspace, user]);
        const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM memory_blocks WHERE workspace_id = 'private'");
        await client.query('COMMIT');
        return rows[0]!.n;
      } finally {
        client.release();
      }
    };
    expect(await visible('private', 'bob')).toBe(3);
    expect(await visible('private', 'ann')).toBe(0);
    expect(await visible('once', 'bob')).toBe(0);
    // Through the API: the owner of the workspace does not see bob's personal history either.
    await expect(canon.runtime.memories(keys.get('private/ann')!, SUBJECT, {})).resolves.toMatchObject({ memories: [] });
  });
});
