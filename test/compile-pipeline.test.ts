import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@canon/core';
import { createRuntime, loadConfig, type Principal, type Runtime } from '@canon/runtime';
import { actorName, createTestDatabase, deploymentStory, freezeResolution, shuffled, startTestCanon, storyActors, type StoryStep, type TestCanon } from '@canon/testing';

const story = [...deploymentStory(), freezeResolution()];
const SUBJECT = 'service:billing';

/** A key per role (`owner`, …) and one per author of the story (`agent:ava`, …). */
async function principals(runtime: Runtime, workspace: string): Promise<Map<string, Principal>> {
  const out = new Map<string, Principal>();
  for (const role of ['agent', 'member', 'maintainer', 'owner'] as const) {
    const { key } = await runtime.createKey({ workspace, role });
    out.set(role, await runtime.authenticate(key));
  }
  for (const a of storyActors(story)) {
    const { key } = await runtime.createKey({ workspace, role: a.role, user: a.user });
    out.set(actorName(a), await runtime.authenticate(key));
  }
  return out;
}

async function ingestAll(runtime: Runtime, who: Map<string, Principal>, steps: readonly StoryStep[], compileEach = false) {
  for (const step of steps) {
    await runtime.ingest(who.get(actorName(step))!, [step.episode]);
    if (compileEach) await runtime.compile(who.get('owner')!, { subject: SUBJECT });
  }
}

describe('compilation is a set, not an append', () => {
  it('gives the same state_hash for the same episodes in 20 arrival orders in 20 fresh databases', async () => {
    const hashes = new Set<string>();
    for (let seed = 1; seed <= 20; seed += 1) {
      const db = await createTestDatabase();
      const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url, poolSize: 4 }), { queue: false, migrate: false });
      try {
        const who = await principals(runtime, 'default');
        await ingestAll(runtime, who, shuffled(story, seed), seed % 2 === 0);
        const out = await runtime.compile(who.get('owner')!, { subject: SUBJECT });
        hashes.add(out.async ? '' : (out.result as { state_hash: string }).state_hash);
      } finally {
        await runtime.close();
        await db.drop();
      }
    }
    expect(hashes.size).toBe(1);
  });

  it('gives equal hashes for compile after every episode, one compile at the end, and rebuild', async () => {
    const canon = await startTestCanon({ queue: false });
    try {
      const each = await principals(canon.runtime, 'each');
      const end = await principals(canon.runtime, 'end');
      await ingestAll(canon.runtime, each, story, true);
      await ingestAll(canon.runtime, end, story, false);
      const a = await canon.runtime.compile(each.get('owner')!, { subject: SUBJECT });
      const b = await canon.runtime.compile(end.get('owner')!, { subject: SUBJECT });
      const rebuilt = await canon.runtime.rebuild(end.get('owner')!, SUBJECT);
      const hash = (r: typeof a) => (r.async ? null : (r.result as { state_hash: string }).state_hash);
      expect(hash(a)).toBe(hash(b));
      expect(rebuilt.state_hash).toBe(hash(b));
      // A no-op compile reports zeros, from the stored hash, not a shortcut around the pending set.
      expect(a.async ? null : a.result).toMatchObject({ episodes_processed: 0, memories_created: 0, memories_updated: 0 });
    } finally {
      await canon.close();
    }
  });

  it('marks each episode once and writes no duplicate memory when two workers compile one subject at once', async () => {
    const db = await createTestDatabase();
    const config = loadConfig({}, { databaseUrl: db.url, poolSize: 6 });
    const [a, b] = await Promise.all([createRuntime(config, { queue: false, migrate: false }), createRuntime(config, { queue: false, migrate: false })]);
    try {
      const who = await principals(a, 'default');
      const batch = Array.from({ length: 300 }, (_, i) => ({
        idempotency_key: `w-${i}`,
        subject: SUBJECT,
        occurred_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
        body: { claims: [{ predicate: `setting ${i % 37}`, value: `v${i % 5}` }] },
      }));
      await a.ingest(who.get('owner')!, batch);
      const owner = who.get('owner')!;
      await Promise.all([a.compile(owner, { subject: SUBJECT }), b.compile(owner, { subject: SUBJECT }), a.compile(owner, { subject: SUBJECT })]);
      const { rows } = await a.pool.query<{ markers: number; distinct_markers: number; memories: number; distinct_keys: number; pending: number }>(
        `SELECT (SELECT count(*)::int FROM episode_markers) AS markers,
                (SELECT count(DISTINCT episode_id)::int FROM episode_markers) AS distinct_markers,
                (SELECT count(*)::int FROM memories) AS memories,
                (SELECT count(DISTINCT key)::int FROM memories) AS distinct_keys,
                (SELECT count(*)::int FROM pending) AS pending`,
      );
      expect(rows[0]).toEqual({ markers: 300, distinct_markers: 300, memories: 37, distinct_keys: 37, pending: 0 });
      const verify = await a.verify(owner, SUBJECT);
      expect(verify.differences).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await db.drop();
    }
  });
});

describe('a large compile streams through its episodes and keys', () => {
  it('gives one compile of 1,300 episodes over 450 keys the state of 13 small compiles and of a rebuild, with every episode marked', async () => {
    const canon = await startTestCanon({ queue: false });
    try {
      // More episodes than one extraction slice and more keys than one fold batch, with a
      // snapshot lineage whose versions land in different slices (each version drops keys the
      // one before stated), so a slice must see what earlier slices wrote.
      const episodes = Array.from({ length: 1300 }, (_, i) =>
        i % 65 === 0
          ? {
              idempotency_key: `doc-${i}`,
              subject: SUBJECT,
              lineage: 'doc:settings',
              snapshot: true,
              occurred_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
              body: { claims: Array.from({ length: 6 - ((i / 65) % 4) }, (_, k) => ({ predicate: `documented ${k}`, value: `rev ${i}` })) },
            }
          : {
              idempotency_key: `s-${i}`,
              subject: SUBJECT,
              occurred_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
              body: { claims: [{ predicate: `setting ${i % 450}`, value: `v${i % 7}` }] },
            },
      );
      const small = await principals(canon.runtime, 'small');
      const large = await principals(canon.runtime, 'large');
      const hash = (r: Awaited<ReturnType<Runtime['compile']>>) => (r.async ? null : (r.result as { state_hash: string }).state_hash);
      let last: string | null = null;
      for (let i = 0; i < episodes.length; i += 100) {
        await canon.runtime.ingest(small.get('owner')!, episodes.slice(i, i + 100));
        last = hash(await canon.runtime.compile(small.get('owner')!, { subject: SUBJECT }));
      }
      for (let i = 0; i < episodes.length; i += 500) await canon.runtime.ingest(large.get('owner')!, episodes.slice(i, i + 500));
      const once = await canon.runtime.compile(large.get('owner')!, { subject: SUBJECT });
      expect(once.async ? null : once.result).toMatchObject({ episodes_processed: 1300, memories_created: 456 });
      expect(hash(once)).toBe(last);
      expect((await canon.runtime.rebuild(large.get('owner')!, SUBJECT)).state_hash).toBe(last);

      const { rows } = await canon.runtime.pool.query<{ marked: number; pending: number }>(
        `SELECT (SELECT count(*)::int FROM episode_markers m JOIN episodes e ON e.id = m.episode_id AND e.workspace_id = m.workspace_id
                 WHERE e.workspace_id = $1) AS marked,
                (SELECT count(*)::int FROM pending WHERE workspace_id = $1) AS pending`,
        [large.get('owner')!.workspace_id],
      );
      expect(rows[0]).toEqual({ marked: 1300, pending: 0 });
      // The lineage's last version states three keys; the three more that earlier versions stated ended.
      const { memories } = await canon.runtime.memories(large.get('owner')!, SUBJECT);
      const documented = memories.filter((m) => m.predicate.startsWith('documented')).sort((a, b) => a.predicate.localeCompare(b.predicate));
      expect(documented.map((m) => [m.predicate, m.status])).toEqual([
        ['documented 0', 'current'],
        ['documented 1', 'current'],
        ['documented 2', 'current'],
        ['documented 3', 'tombstoned'],
        ['documented 4', 'tombstoned'],
        ['documented 5', 'tombstoned'],
      ]);
    } finally {
      await canon.close();
    }
  });
});

describe('a compile\'s bookkeeping', () => {
  it('marks every episode and clears its pending row when no episode states a fact (no key to fold), and again after keys exist', async () => {
    const canon = await startTestCanon({ queue: false });
    try {
      const who = await principals(canon.runtime, 'quiet');
      const owner = who.get('owner')!;
      const counts = async () =>
        (
          await canon.runtime.pool.query<{ marked: number; pending: number; memories: number }>(
            `SELECT (SELECT count(*)::int FROM episode_markers WHERE workspace_id = $1) AS marked,
                    (SELECT count(*)::int FROM pending WHERE workspace_id = $1) AS pending,
                    (SELECT count(*)::int FROM memories WHERE workspace_id = $1) AS memories`,
            [owner.workspace_id],
          )
        ).rows[0];
      // More than one extraction slice of episodes that state nothing: the fold has no batch to
      // carry their markers, which must still be written.
      const quiet = Array.from({ length: 1100 }, (_, i) => ({ idempotency_key: `q-${i}`, subject: SUBJECT, body: { claims: [] } }));
      for (let i = 0; i < quiet.length; i += 500) await canon.runtime.ingest(owner, quiet.slice(i, i + 500));
      const first = await canon.runtime.compile(owner, { subject: SUBJECT });
      expect(first.async ? null : first.result).toMatchObject({ episodes_processed: 1100, memories_created: 0 });
      expect(await counts()).toEqual({ marked: 1100, pending: 0, memories: 0 });
      // A later compile of a subject with claims stored counts them in the table, as before.
      await canon.runtime.ingest(owner, [{ idempotency_key: 'said', subject: SUBJECT, body: { claims: [{ predicate: 'port', value: 80 }] } }]);
      await canon.runtime.compile(owner, { subject: SUBJECT });
      await canon.runtime.ingest(owner, [{ idempotency_key: 'said again', subject: SUBJECT, body: { claims: [{ predicate: 'port', value: 81 }] } }]);
      await canon.runtime.compile(owner, { subject: SUBJECT });
      expect(await counts()).toEqual({ marked: 1102, pending: 0, memories: 1 });
      expect((await canon.runtime.verify(owner, SUBJECT)).differences).toEqual([]);
    } finally {
      await canon.close();
    }
  });
});

describe('canon verify', () => {
  let canon: TestCanon;
  let owner: Principal;
  beforeAll(async () => {
    canon = await startTestCanon({ queue: false });
    const who = await principals(canon.runtime, 'default');
    owner = who.get('owner')!;
    await ingestAll(canon.runtime, who, story);
  });
  afterAll(() => canon.close());

  it('passes on an honest database', async () => {
    const report = await canon.runtime.verify(owner, SUBJECT);
    expect(report.ok).toBe(true);
    expect(report.first.episodes_processed).toBe(story.length);
    expect(report.second).toMatchObject({ episodes_processed: 0, memories_created: 0, memories_updated: 0 });
    expect(report.stored_state_hash).toBe(report.rebuilt_state_hash);
  });

  it('fails with the subject, key and expected vs actual after a derived row is corrupted', async () => {
    await canon.runtime.pool.query(
      `UPDATE memories SET timeline = jsonb_set(timeline::jsonb, '{values,0,value}', '"Monday"')::json WHERE predicate = 'owning team'`,
    );
    const report = await canon.runtime.verify(owner, SUBJECT);
    expect(report.ok).toBe(false);
    const timeline = report.differences.find((d) => d.what === 'timeline');
    expect(timeline).toMatchObject({ subject: SUBJECT, key: expect.stringContaining('owning team') });
    expect(JSON.stringify(timeline!.expected)).toContain('payments');
    expect(JSON.stringify(timeline!.actual)).toContain('Monday');
    expect(report.stored_state_hash).not.toBe(report.rebuilt_state_hash);
    // Rebuild repairs it.
    await canon.runtime.rebuild(owner, SUBJECT);
    expect((await canon.runtime.verify(owner, SUBJECT)).ok).toBe(true);
  });

  it('keeps every projection row right through many small compiles of one hot key, and notices a missing evidence row', async () => {
    const hot = 'service:hot';
    for (let i = 0; i < 60; i += 1) {
      const claim = { predicate: 'feature flag', value: i % 7 === 0 ? 'off' : 'on', ...(i % 5 === 0 ? { conditions: [`cohort ${i}`] } : {}) };
      await canon.runtime.ingest(owner, [{ idempotency_key: `hot-${i}`, subject: hot, occurred_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), body: { claims: [claim] } }]);
      if (i % 3 === 0) await canon.runtime.compile(owner, { subject: hot });
    }
    const report = await canon.runtime.verify(owner, hot);
    expect(report.differences).toEqual([]);
    await canon.runtime.pool.query(`DELETE FROM evidence WHERE idempotency_key = 'hot-42'`);
    const broken = await canon.runtime.verify(owner, hot);
    expect(broken.differences.map((d) => d.what)).toEqual(['evidence rows']);
    await canon.runtime.rebuild(owner, hot);
    expect((await canon.runtime.verify(owner, hot)).ok).toBe(true);
  });

  it('notices a value row that disagrees with its timeline', async () => {
    await canon.runtime.pool.query(`UPDATE memory_values SET status = 'retracted' WHERE ord = 0 AND search_text LIKE 'owning team%'`);
    const report = await canon.runtime.verify(owner, SUBJECT);
    expect(report.differences.map((d) => d.what)).toContain('memory_values rows');
    await canon.runtime.rebuild(owner, SUBJECT);
  });
});
