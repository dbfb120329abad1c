import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@canon/runtime';
import { startTestCanon, type TestCanon } from '@canon/testing';
import { CLAIM_AT, TIMELINE } from '@canon/store';

// A compile that brings a key only claims after everything it folded resumes the key's fold from
// the checkpoint stored with its memory, and reads none of the key's other claims. Whatever the
// path, the memory must be the one a single compile of the whole log writes: here one workspace
// compiles after every episode and another once, and everything but the workspace must agree.

let canon: TestCanon;
const keys = new Map<string, Principal>();
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const workspace of ['once', 'each', 'probe', 'snap', 'late', 'same', 'other-doc', 'later-doc'])
    for (const [user, role] of [
      ['ann', 'owner'],
      ['bob', 'member'],
      ['bot', 'agent'],
    ] as const)
      keys.set(`${workspace}/${user}`, (await canon.key(role, { workspace, user })).principal);
});
afterAll(() => canon.close());

const SUBJECT = 'service:billing';
const at = (hour: number) => new Date(Date.UTC(2025, 0, 1, hour)).toISOString();

type Step = { user: 'ann' | 'bob' | 'bot'; claim: Record<string, unknown>; hour: number; lineage?: string; snapshot?: boolean };
const story: Step[] = [
  { user: 'bob', hour: 1, claim: { predicate: 'deploy day', value: 'Tuesday' } },
  { user: 'bob', hour: 2, claim: { predicate: 'deploy day', value: 'Tuesday' } },
  // A member's different value: a dispute (flag mode, another author).
  { user: 'ann', hour: 3, claim: { predicate: 'deploy day', value: 'Wednesday', correction: false } },
  // An agent cannot move an owner's fact: overruled, twice with the same value.
  { user: 'bot', hour: 4, claim: { predicate: 'deploy day', value: 'Friday' } },
  { user: 'bot', hour: 5, claim: { predicate: 'deploy day', value: 'Friday' } },
  // The owner changes it at an explicit time (now): the open values end.
  { user: 'ann', hour: 6, claim: { predicate: 'deploy day', value: 'Thursday', effective_from: at(6) } },
  { user: 'bob', hour: 7, claim: { predicate: 'deploy day', value: 'Thursday' } },
  // The owner restates with a condition, then retracts.
  { user: 'ann', hour: 8, claim: { predicate: 'deploy day', value: 'Thursday', conditions: ['after tests pass'] } },
  { user: 'ann', hour: 9, claim: { predicate: 'deploy day', value: null, op: 'retract' } },
  { user: 'bob', hour: 10, claim: { predicate: 'deploy day', value: 'Monday' } },
];

const episode = (workspace: string, s: Step, i: number) => ({
  idempotency_key: `${workspace}-${i}`,
  subject: SUBJECT,
  occurred_at: at(s.hour),
  ...(s.lineage ? { lineage: s.lineage } : {}),
  ...(s.snapshot ? { snapshot: true } : {}),
  body: { claims: [s.claim] },
});

async function ingest(workspace: string, steps: readonly Step[], from = 0) {
  for (const [j, s] of steps.entries()) await canon.runtime.ingest(keys.get(`${workspace}/${s.user}`)!, [episode(workspace, s, from + j)]);
}
const compile = (workspace: string) => canon.runtime.compile(keys.get(`${workspace}/ann`)!, { subject: SUBJECT });

type Stored = {
  memories: Array<{ checkpoint: unknown; timeline: { decisions: Array<{ kind: string }>; values: Array<{ evidence: Array<{ text: string }> }> } }>;
};

/** The stored memory with every workspace-specific spelling taken out. */
async function stored(workspace: string): Promise<Stored> {
  const q = async (text: string) => (await canon.runtime.pool.query(text, [workspace, SUBJECT])).rows;
  // The whole timeline, assembled from the blocks sealed apart from the row and its head.
  const memories = await q(`SELECT key, revision, status, ${TIMELINE}, checkpoint, told_as_change FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY predicate`);
  const values = await q('SELECT ord, value, search_text, status, valid_from, valid_to FROM memory_values WHERE workspace_id = $1 AND subject = $2 ORDER BY ord');
  const decisions = await q(
    'SELECT idempotency_key, claim_index, kind, target, reason FROM claim_decisions WHERE workspace_id = $1 AND $2::text IS NOT NULL ORDER BY idempotency_key, claim_index',
  );
  // Ids hash the workspace, and a checkpoint's claims name their episode and when it arrived.
  const text = JSON.stringify({ memories, values, decisions }, (k, v: unknown) => (k === 'episode_id' || k === 'ingested_at' || k === 'memory_id' ? undefined : v));
  return JSON.parse(text.replaceAll(workspace, 'WS')) as Stored;
}

const stateHash = async (workspace: string) => {
  const r = await compile(workspace);
  if (r.async || !('state_hash' in r.result)) throw new Error('expected one subject compiled in the request');
  return r.result.state_hash;
};

describe('a key compiled episode by episode resumes its fold', () => {
  it('writes the memory one compile of the whole log writes: timeline, values, decisions, checkpoint', async () => {
    await ingest('once', story);
    await compile('once');
    for (const [i, s] of story.entries()) {
      await ingest('each', [s], i);
      await compile('each');
    }
    const once = await stored('once');
    const each = await stored('each');
    expect(once.memories[0]!.timeline.decisions.map((d) => d.kind)).toContain('overruled');
    expect(once.memories[0]!.checkpoint).not.toBeNull();
    expect(each).toEqual(once);
    for (const w of ['once', 'each']) {
      expect((await canon.runtime.verify(keys.get(`${w}/ann`)!, SUBJECT)).ok).toBe(true);
      const hash = await stateHash(w);
      expect((await canon.runtime.rebuild(keys.get(`${w}/ann`)!, SUBJECT)).state_hash).toBe(hash);
    }
  });

  it('reads no claim of a closed value: an edited claim shows only once the key folds from all its claims', async () => {
    // Claims are never edited; this one is, so that which claims the compile read can be seen.
    await ingest('probe', story.slice(0, 7));
    await compile('probe');
    await canon.runtime.pool.query(
      `UPDATE claims SET claim = jsonb_set(claim::jsonb, '{${CLAIM_AT.text}}', '"edited"')::json WHERE workspace_id = 'probe' AND claim->>${CLAIM_AT.idempotency_key} = 'probe-0'`,
    );
    const texts = async () => (await stored('probe')).memories[0]!.timeline.values.flatMap((v) => v.evidence.map((e) => e.text));
    await ingest('probe', story.slice(7, 8), 7);
    await compile('probe');
    expect(await texts()).not.toContain('edited');
    // A claim of an hour already folded: the key folds from all its claims, the edited one too.
    await ingest('probe', [{ ...story[1]!, hour: 2 }], 8);
    await compile('probe');
    expect(await texts()).toContain('edited');
  });

  it('resumes a value restated hundreds of times: its checkpoint names its authors, not its claims', async () => {
    // Sixty an hour (hours 1 to 5), each its own episode and lineage.
    const same = Array.from({ length: 300 }, (_, i): Step => ({ user: 'bob', hour: 1 + Math.floor(i / 60), claim: { predicate: 'deploy day', value: 'Tuesday' } }));
    for (let i = 0; i < same.length; i += 100) await canon.runtime.ingest(keys.get('same/bob')!, same.slice(i, i + 100).map((s, j) => episode('same', s, i + j)));
    await compile('same');
    const { rows } = await canon.runtime.pool.query<{ checkpoint: { open: unknown[] } }>("SELECT checkpoint FROM memories WHERE workspace_id = 'same'");
    expect(rows[0]!.checkpoint.open).toEqual([{ at: 0, value: 'Tuesday', authors: [['bob', 30]], historical: false }]);
    const setText = (text: string) =>
      canon.runtime.pool.query(
        `UPDATE claims SET claim = jsonb_set(claim::jsonb, '{${CLAIM_AT.text}}', to_jsonb($1::text))::json WHERE workspace_id = 'same' AND claim->>${CLAIM_AT.idempotency_key} = 'same-0'`,
        [text],
      );
    const { rows: original } = await canon.runtime.pool.query<{ text: string }>(`SELECT claim->>${CLAIM_AT.text} AS text FROM claims WHERE workspace_id = 'same' AND claim->>${CLAIM_AT.idempotency_key} = 'same-0'`);
    await setText('edited');
    await ingest('same', [{ user: 'bob', hour: 7, claim: { predicate: 'deploy day', value: 'Tuesday' } }], 300);
    await compile('same');
    const texts = (await stored('same')).memories[0]!.timeline.values.flatMap((v) => v.evidence.map((e) => e.text));
    expect(texts).toHaveLength(301);
    expect(texts).not.toContain('edited');
    // The owner changes it. A value whose evidence is kept in blocks (past 256 claims) is known to a
    // resume only by its last claims, so the change folds the key from all its claims (the edit is
    // undone first: that fold reads them). Every one of the 301 claims' decisions says it was
    // superseded, as a rebuild writes them.
    await setText(original[0]!.text);
    await ingest('same', [{ user: 'ann', hour: 8, claim: { predicate: 'deploy day', value: 'Friday' } }], 301);
    await compile('same');
    const incremental = await stored('same');
    expect(incremental.memories[0]!.timeline.decisions.filter((d) => d.kind === 'superseded_by')).toHaveLength(301);
    // The first 256 of those decisions are final (no open value stands on their claims): kept as a
    // block apart from the row, whose head holds the rest.
    const kept = await canon.runtime.pool.query<{ n: number; head: number }>(
      `SELECT (SELECT count(*)::int FROM memory_blocks WHERE workspace_id = 'same' AND kind = 'decisions') AS n,
              json_array_length(timeline->'decisions') AS head FROM memories WHERE workspace_id = 'same'`,
    );
    expect(kept.rows).toEqual([{ n: 1, head: 302 - 256 }]);
    await canon.runtime.pool.query(
      `UPDATE claims SET claim = jsonb_set(claim::jsonb, '{${CLAIM_AT.text}}', '""')::json WHERE workspace_id = 'same' AND claim->>${CLAIM_AT.idempotency_key} = 'same-0'`,
    );
    await canon.runtime.rebuild(keys.get('same/ann')!, SUBJECT);
    expect(await stored('same')).toEqual(incremental);
  });

  it('a snapshot version of a lineage of the key drops the checkpoint, though the timeline stays as it was', async () => {
    const lineage = 'doc:runbook';
    await ingest('snap', [{ user: 'bob', hour: 1, lineage, claim: { predicate: 'deploy day', value: 'Tuesday' } }]);
    await compile('snap');
    expect((await stored('snap')).memories[0]!.checkpoint).not.toBeNull();
    // The runbook's next version is a snapshot stating the same: nothing ends, the fold cannot resume.
    await ingest('snap', [{ user: 'bob', hour: 2, lineage, snapshot: true, claim: { predicate: 'deploy day', value: 'Tuesday' } }], 1);
    await compile('snap');
    expect((await stored('snap')).memories[0]!.checkpoint).toBeNull();
    // A later version that no longer states the key ends it there, exactly as the rebuild does.
    await ingest('snap', [{ user: 'bob', hour: 3, lineage, snapshot: true, claim: { predicate: 'owner', value: 'billing team' } }], 2);
    await ingest('snap', [{ user: 'ann', hour: 4, claim: { predicate: 'deploy day', value: 'Friday' } }], 3);
    await compile('snap');
    const incremental = await stored('snap');
    await canon.runtime.rebuild(keys.get('snap/ann')!, SUBJECT);
    expect(JSON.stringify(await stored('snap'))).toBe(JSON.stringify(incremental));
  });

  it('a snapshot of another document, or of an earlier version of the claim\'s own, keeps verify passing after every compile', async () => {
    // Compiled after each episode: a member's claim, a member's snapshot of doc2 stating another
    // key, then the owner's claim in doc2 dated after that snapshot (nothing of doc2 can end it).
    await ingest('other-doc', [{ user: 'bob', hour: 5, claim: { predicate: 'deploy day', value: 'Monday' } }]);
    await compile('other-doc');
    await ingest('other-doc', [{ user: 'bob', hour: 2, lineage: 'doc2', snapshot: true, claim: { predicate: 'region', value: 'eu' } }], 1);
    await compile('other-doc');
    await ingest('other-doc', [{ user: 'ann', hour: 7, lineage: 'doc2', claim: { predicate: 'deploy day', value: 'Friday' } }], 2);
    await compile('other-doc');
    const report = await canon.runtime.verify(keys.get('other-doc/ann')!, SUBJECT);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('a claim compiled after a later snapshot of its own document is ended by it, as the whole fold ends it', async () => {
    // doc2's snapshot dated hour 9 (stating another key) was compiled first; the member's claim in
    // doc2 dated hour 7 arrives later: the newer version no longer states it, so it ends at hour 9.
    await ingest('later-doc', [{ user: 'bob', hour: 5, claim: { predicate: 'deploy day', value: 'Monday' } }]);
    await compile('later-doc');
    await ingest('later-doc', [{ user: 'bob', hour: 9, lineage: 'doc2', snapshot: true, claim: { predicate: 'region', value: 'eu' } }], 1);
    await compile('later-doc');
    await ingest('later-doc', [{ user: 'bob', hour: 7, lineage: 'doc2', claim: { predicate: 'deploy day', value: 'Friday' } }], 2);
    await compile('later-doc');
    const incremental = await stored('later-doc');
    const report = await canon.runtime.verify(keys.get('later-doc/ann')!, SUBJECT);
    expect(report.differences).toEqual([]);
    await canon.runtime.rebuild(keys.get('later-doc/ann')!, SUBJECT);
    expect(JSON.stringify(await stored('later-doc'))).toBe(JSON.stringify(incremental));
  });

  it('a claim that lands before the checkpoint refolds the key from all its claims', async () => {
    await ingest('late', [story[0]!, story[5]!]);
    await compile('late');
    // Stated now, but of an hour before the last claim folded: it belongs in the middle.
    await ingest('late', [{ ...story[3]!, user: 'bob', hour: 4 }], 2);
    await compile('late');
    const incremental = await stored('late');
    await canon.runtime.rebuild(keys.get('late/ann')!, SUBJECT);
    expect(JSON.stringify(await stored('late'))).toBe(JSON.stringify(incremental));
    expect(incremental.memories[0]!.timeline.decisions).toHaveLength(3);
  });

  it('verify holds a stored checkpoint to the fold of the log, and takes none as sound', async () => {
    const owner = keys.get('each/ann')!;
    const memoryId = (await canon.runtime.pool.query<{ id: string }>("SELECT id FROM memories WHERE workspace_id = 'each'")).rows[0]!.id;
    const report = async () => {
      const r = await canon.runtime.verify(owner, SUBJECT);
      return { ok: r.ok, what: r.differences.map((d) => d.what) };
    };
    expect(await report()).toEqual({ ok: true, what: [] });
    // A checkpoint that says the key's last claim was another: the next compile would resume wrong.
    await canon.runtime.pool.query(
      `UPDATE memories SET checkpoint = json_build_object('last', (checkpoint->'last')::jsonb || '{"index": 7}', 'open', checkpoint->'open') WHERE workspace_id = 'each' AND id = $1`,
      [memoryId],
    );
    expect(await report()).toEqual({ ok: false, what: ['checkpoint'] });
    // None at all (a row from before checkpoints): the next compile folds from all claims.
    await canon.runtime.pool.query("UPDATE memories SET checkpoint = NULL WHERE workspace_id = 'each' AND id = $1", [memoryId]);
    expect(await report()).toEqual({ ok: true, what: [] });
  });
});
