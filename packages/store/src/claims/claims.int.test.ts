import { describe, expect, it } from 'vitest';
import { claimBody, compiledFrom, inWorkspace, logEpisodes, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { insertMarkers } from '../compile-runs/insert-markers.js';
import { claimCountsOfMemories } from './claim-counts-of-memories.js';
import { topStandingsOfMemories } from './top-standings-of-memories.js';
import { claimsOfMemories } from './claims-of-memories.js';
import { claimsOfSubject } from './claims-of-subject.js';
import { compiledSnapshotVersions } from './compiled-snapshot-versions.js';
import { factKeyOfMemoryId } from './fact-key-of-memory-id.js';
import { insertClaims } from './insert-claims.js';
import { memoryIdsOfEpisodes } from './memory-ids-of-episodes.js';
import { memoryIdsWithClaims } from './memory-ids-with-claims.js';
import { memoryIdsOfLineages } from './memory-ids-of-lineages.js';
import { snapshotVersions } from './snapshot-versions.js';
import { CLAIM_AT, claimAsStored } from './stored-claim.js';
import type { Claim } from '@canon/core';
import { subjectHasClaims } from './subject-has-claims.js';

// Claims as extraction made them from the log, read back by memory, subject and lineage.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const run = { id: '00000000-0000-4000-8000-000000000001', compiler_version: 'test', policy_fingerprint: 'fp' };

/** Episodes of one subject with their claims stored: two keys, one stated twice. */
async function seeded(workspaceId: string) {
  const episodes = await logEpisodes(pool, workspaceId, [
    { idempotency_key: 'e1', subject: 's', lineage: 'doc:a', body: claimBody('deploy_day', 'Tuesday') },
    { idempotency_key: 'e2', subject: 's', lineage: 'doc:b', body: claimBody('deploy_day', 'Thursday') },
    { idempotency_key: 'e3', subject: 's', lineage: 'doc:b', body: claimBody('owner', 'ann') },
    { idempotency_key: 'e4', subject: 't', lineage: 'doc:a', body: claimBody('owner', 'bob') },
  ]);
  const { claims } = compiledFrom(episodes);
  await insertClaims(pool, claims);
  const day = claims.find((c) => c.predicate === 'deploy_day')!.memory_id;
  const owner = claims.find((c) => c.predicate === 'owner' && c.subject === 's')!.memory_id;
  return { episodes, claims, day, owner };
}

describe('insertClaims', () => {
  it('stores claims once: a repeat of the same (episode, index) is skipped', async () => {
    const { claims, day } = await seeded('w-insert');
    await insertClaims(pool, claims);
    const stored = await claimsOfMemories(pool, 'w-insert', [day]);
    expect(stored.get(day)!.map((c) => c.idempotency_key).sort()).toEqual(['e1', 'e2']);
    expect(stored.get(day)![0]).toEqual(claims.find((c) => c.idempotency_key === stored.get(day)![0]!.idempotency_key));
  });
});

describe('a claim\'s row', () => {
  it('keeps in its JSON only what its columns and its key do not say, by position, and reads back as the claim', async () => {
    const { claims, day } = await seeded('w-stored');
    const { rows } = await pool.query<{ claim: unknown[]; text: string; key: string }>(
      `SELECT claim, claim::text AS text, claim->>${CLAIM_AT.key} AS key FROM claims WHERE workspace_id = 'w-stored'`,
    );
    expect(rows).toHaveLength(claims.length);
    for (const r of rows) {
      // No member names, no fact key beside the key, no column's value.
      expect(Array.isArray(r.claim)).toBe(true);
      expect(r.claim).toHaveLength(Object.keys(CLAIM_AT).length + 1);
      expect(r.text).not.toMatch(/"fact_key"|"idempotency_key"/);
      const claim = claims.find((c) => c.key === r.key)!;
      for (const column of [claim.workspace_id, claim.episode_id, claim.memory_id]) expect(r.text).not.toContain(JSON.stringify(column));
    }
    const read = (await claimsOfMemories(pool, 'w-stored', [day])).get(day)!;
    for (const c of read) {
      const made = claims.find((x) => x.episode_id === c.episode_id && x.index === c.index)!;
      expect(c).toEqual(made);
      expect(JSON.stringify(c)).toBe(JSON.stringify(claimAsStored(made)));
    }
  });

  it('keeps a claim that is not as extraction makes it as an object, and reads both forms in one member order', async () => {
    const { claims, day, owner } = await seeded('w-forms');
    const made = claims.find((c) => c.memory_id === day)!;
    // Qualifiers in another order than its key's: the key would not give this fact key back.
    const odd: Claim = { ...made, index: 7, fact_key: { ...made.fact_key, qualifiers: { b: '1', a: '2' } } };
    await insertClaims(pool, [odd]);
    const { rows } = await pool.query<{ claim: unknown }>(`SELECT claim FROM claims WHERE workspace_id = 'w-forms' AND idx = 7`);
    expect(Array.isArray(rows[0]!.claim)).toBe(false);
    expect(rows[0]!.claim).toMatchObject({ key: made.key, fact_key: { qualifiers: { b: '1', a: '2' } } });
    const read = (await claimsOfMemories(pool, 'w-forms', [day])).get(day)!;
    expect(read.find((c) => c.index === 7)).toEqual(odd);
    expect(JSON.stringify(read.find((c) => c.index === 7))).toBe(JSON.stringify(claimAsStored(odd)));
    const keyOrder = new Set(read.map((c) => Object.keys(c).join(',')));
    expect(keyOrder.size).toBe(1);
    // What SQL reads of a claim answers alike for both forms.
    await pool.query(`UPDATE claims SET claim = $2::json WHERE workspace_id = 'w-forms' AND memory_id = $1`, [owner, JSON.stringify(storedAsObject(claims.find((c) => c.memory_id === owner)!))]);
    expect(await factKeyOfMemoryId(pool, 'w-forms', owner)).toEqual(claims.find((c) => c.memory_id === owner)!.fact_key);
    expect(await factKeyOfMemoryId(pool, 'w-forms', day)).toEqual(made.fact_key);
    const tops = await topStandingsOfMemories(pool, 'w-forms', [day, owner]);
    expect([tops.get(day), tops.get(owner)]).toEqual([made.standing, claims.find((c) => c.memory_id === owner)!.standing]);
  });

  it('reads a row written whole, before the JSON left the columns out, as the same claim in the same member order', async () => {
    const { claims, day } = await seeded('w-whole');
    const [first] = claims.filter((c) => c.memory_id === day);
    await pool.query("UPDATE claims SET claim = $3::json WHERE workspace_id = 'w-whole' AND episode_id = $1 AND idx = $2", [first!.episode_id, first!.index, JSON.stringify(first)]);
    const read = (await claimsOfMemories(pool, 'w-whole', [day])).get(day)!;
    const whole = read.find((c) => c.episode_id === first!.episode_id)!;
    const other = read.find((c) => c.episode_id !== first!.episode_id)!;
    expect(whole).toEqual(first);
    expect(Object.keys(whole)).toEqual(Object.keys(other));
    // A compile that folds a claim it holds, unread, folds it in the same form.
    expect(claimAsStored(first!)).toEqual(whole);
    expect(Object.keys(claimAsStored(first!))).toEqual(Object.keys(whole));
  });
});

/** A claim as an earlier version stored it: an object of the members its columns do not keep. */
function storedAsObject(claim: Claim): object {
  const { workspace_id: _w, episode_id: _e, index: _i, subject: _s, memory_id: _m, lineage: _l, ...rest } = claim;
  return rest;
}

describe('subjectHasClaims', () => {
  it('says whether any claim of the subject is stored', async () => {
    await seeded('w-has');
    expect(await subjectHasClaims(pool, 'w-has', 's')).toBe(true);
    expect(await subjectHasClaims(pool, 'w-has', 'nobody')).toBe(false);
    expect(await subjectHasClaims(pool, 'w-other-has', 's')).toBe(false);
  });
});

describe('memoryIdsOfLineages', () => {
  it('lists the memories a lineage stated in one subject', async () => {
    const { day, owner } = await seeded('w-lineages');
    expect(await memoryIdsOfLineages(pool, 'w-lineages', 's', ['doc:a'])).toEqual([day]);
    expect((await memoryIdsOfLineages(pool, 'w-lineages', 's', ['doc:b'])).sort()).toEqual([day, owner].sort());
    expect(await memoryIdsOfLineages(pool, 'w-lineages', 's', [])).toEqual([]);
  });
});

describe('memoryIdsOfEpisodes', () => {
  it('lists the memories these episodes\' claims are on, each once', async () => {
    const { episodes, day, owner } = await seeded('w-of-episodes');
    const [e1, e2, e3, e4] = episodes.map((e) => e.id);
    expect(await memoryIdsOfEpisodes(pool, 'w-of-episodes', [e1!, e2!])).toEqual([day]);
    expect(await memoryIdsOfEpisodes(pool, 'w-of-episodes', [e2!, e3!])).toEqual([day, owner].sort());
    expect(await memoryIdsOfEpisodes(pool, 'w-of-episodes', [e4!])).toHaveLength(1);
    expect(await memoryIdsOfEpisodes(pool, 'w-other', [e1!])).toEqual([]);
    expect(await memoryIdsOfEpisodes(pool, 'w-of-episodes', [])).toEqual([]);
  });
});

describe('memoryIdsWithClaims', () => {
  it('keeps the memories that have a claim stored', async () => {
    const { day, owner } = await seeded('w-with-claims');
    expect(await memoryIdsWithClaims(pool, 'w-with-claims', [owner, 'gone', day])).toEqual([day, owner].sort());
    expect(await memoryIdsWithClaims(pool, 'w-other', [day])).toEqual([]);
    expect(await memoryIdsWithClaims(pool, 'w-with-claims', [])).toEqual([]);
  });
});

describe('claimsOfMemories', () => {
  it('groups the claims of these memories by memory, leaving out memories with none', async () => {
    const { day, owner } = await seeded('w-of-memories');
    const out = await claimsOfMemories(pool, 'w-of-memories', [day, owner, 'no-such-memory']);
    expect([...out.keys()].sort()).toEqual([day, owner].sort());
    expect(out.get(owner)!.map((c) => c.value)).toEqual(['ann']);
  });
});

describe('claimCountsOfMemories', () => {
  it('counts the claims of each memory, in a compile\'s transaction of the workspace only', async () => {
    const { day, owner } = await seeded('w-counts');
    // A compile's transaction: the workspace's, every user's (inWorkspace with no user).
    const counts = (workspaceId: string, ids: string[], user: string | null = null) =>
      inWorkspace(pool, workspaceId, (tx) => claimCountsOfMemories(tx, 'w-counts', ids), user);
    expect(await counts('w-counts', [day, owner, 'no-such-memory'])).toEqual(new Map([[day, 2], [owner, 1]]));
    expect(await counts('w-counts', [])).toEqual(new Map());
    // A request's transaction (one user's) or another workspace's learns nothing.
    expect(await counts('w-counts', [day], 'ann')).toEqual(new Map());
    expect(await counts('w-other', [day])).toEqual(new Map());
  });
});

describe('topStandingsOfMemories', () => {
  it('gives the highest standing among each memory\'s claims, none for a memory without claims', async () => {
    const { claims, day, owner } = await seeded('w-tops');
    const standing = (id: string) => Math.max(...claims.filter((c) => c.memory_id === id).map((c) => c.standing));
    expect(await topStandingsOfMemories(pool, 'w-tops', [day, owner, 'no-such-memory'])).toEqual(new Map([[day, standing(day)], [owner, standing(owner)]]));
    expect(await topStandingsOfMemories(pool, 'w-tops', [])).toEqual(new Map());
    expect(await topStandingsOfMemories(pool, 'w-elsewhere', [day])).toEqual(new Map());
  });
});

describe('snapshotVersions', () => {
  it('gives the compiled and compiling snapshot versions of lineages, with the keys each stated', async () => {
    const [v1, v2] = await logEpisodes(pool, 'w-snapshots', [
      { idempotency_key: 'v1', subject: 's', lineage: 'file:a', snapshot: true, body: claimBody('port', 80) },
      { idempotency_key: 'v2', subject: 's', lineage: 'file:a', snapshot: true, body: {} },
    ]);
    const { claims } = compiledFrom([v1!]);
    await insertClaims(pool, claims);
    await insertMarkers(pool, 'w-snapshots', 's', [v1!.id], run);
    // v2 is still pending: not a version yet, unless it is the one being compiled.
    const compiled = await snapshotVersions(pool, 'w-snapshots', 's', ['file:a'], []);
    expect(compiled.map((v) => [v.idempotency_key, v.keys])).toEqual([['v1', [claims[0]!.key]]]);
    const compiling = await snapshotVersions(pool, 'w-snapshots', 's', ['file:a'], [v2!.id]);
    expect(compiling.map((v) => [v.idempotency_key, v.keys]).sort()).toEqual([['v1', [claims[0]!.key]], ['v2', []]]);
    expect(await snapshotVersions(pool, 'w-snapshots', 's', ['file:b'], [v2!.id])).toEqual([]);
  });
});

describe('claimsOfSubject', () => {
  it('groups every claim of a subject by memory', async () => {
    const { day, owner } = await seeded('w-of-subject');
    const out = await claimsOfSubject(pool, 'w-of-subject', 's');
    expect(new Map([...out].map(([k, v]) => [k, v.length]))).toEqual(new Map([[day, 2], [owner, 1]]));
  });
});

describe('compiledSnapshotVersions', () => {
  it('gives only the snapshot versions a compile consumed', async () => {
    const [v1] = await logEpisodes(pool, 'w-compiled', [
      { idempotency_key: 'v1', subject: 's', lineage: 'file:a', snapshot: true, body: claimBody('port', 80) },
      { idempotency_key: 'v2', subject: 's', lineage: 'file:a', snapshot: true, body: claimBody('port', 81) },
      { idempotency_key: 'plain', subject: 's', body: claimBody('port', 82) },
    ]);
    await insertMarkers(pool, 'w-compiled', 's', [v1!.id], run);
    const out = await compiledSnapshotVersions(pool, 'w-compiled', 's');
    expect(out.map((v) => [v.idempotency_key, v.snapshot, v.keys])).toEqual([['v1', true, []]]);
  });
});

describe('factKeyOfMemoryId', () => {
  it('gives the fact key of a memory id from its claims, and null for an id with none', async () => {
    const { claims, owner } = await seeded('w-fact-key');
    expect(await factKeyOfMemoryId(pool, 'w-fact-key', owner)).toEqual(claims.find((c) => c.memory_id === owner)!.fact_key);
    expect(await factKeyOfMemoryId(pool, 'w-fact-key', 'no-such-memory')).toBeNull();
  });
});
