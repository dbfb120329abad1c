import { describe, expect, it } from 'vitest';
import { claimBody, compiledFrom, logEpisodes, markPending, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { writeProjections } from '../projections/write-projections.js';
import { insertMemories } from '../memories/insert-memories.js';
import { getSubject } from './get-subject.js';
import { listSubjects } from './list-subjects.js';
import type { SubjectRow } from './rows.js';
import { staleSubjects } from './stale-subjects.js';
import { subjectLogStates } from './subject-log-states.js';
import { subjectsAmong, subjectSeenStatement } from './subjects-among.js';
import { subjectsOfPredicates } from './subjects-of-predicates.js';
import { subjectsOfWorkspace } from './subjects-of-workspace.js';
import { upsertSubject } from './upsert-subject.js';
import { restampSubjects } from './restamp-subjects.js';

// A subject's compiled state, and which subjects there are.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

const state = (workspace_id: string, subject: string, over: Partial<SubjectRow> = {}): SubjectRow => ({
  workspace_id,
  subject,
  state_hash: 'h1',
  compiler_version: 'c1',
  policy_fingerprint: 'p1',
  memories: 1,
  personal_sums: {},
  open_conflicts: 0,
  ...over,
});

/** Subject `s` compiled (two memories, one disputed), `t` with an episode still waiting. */
async function seeded(workspaceId: string) {
  const episodes = [
    ...(await logEpisodes(pool, workspaceId, [
      { idempotency_key: '1', subject: 's', body: claimBody('region', 'eu') },
      { idempotency_key: '2', subject: 's', body: claimBody('owner', 'ann') },
    ], { role: 'member', user: 'ann' })),
    ...(await logEpisodes(pool, workspaceId, [{ idempotency_key: '3', subject: 's', body: claimBody('region', 'us') }], { role: 'member', user: 'bob' })),
  ];
  const { memories } = compiledFrom(episodes);
  await insertMemories(pool, workspaceId, memories);
  await writeProjections(pool, workspaceId, memories.map((write) => ({ write, before: null })));
  await upsertSubject(pool, state(workspaceId, 's', { memories: 2, open_conflicts: 1 }));
  const [waiting] = await logEpisodes(pool, workspaceId, [{ idempotency_key: '4', subject: 't', body: claimBody('owner', 'bob') }]);
  await markPending(pool, workspaceId, [{ subject: 't', episode_id: waiting!.id }]);
}

describe('getSubject', () => {
  it('reads a subject\'s state, or null for one never compiled', async () => {
    await upsertSubject(pool, state('w-get', 's'));
    expect(await getSubject(pool, 'w-get', 's')).toEqual(state('w-get', 's'));
    expect(await getSubject(pool, 'w-get', 'never')).toBeNull();
  });
});

describe('upsertSubject', () => {
  it('inserts a subject\'s state, then replaces it', async () => {
    await upsertSubject(pool, state('w-upsert', 's'));
    await upsertSubject(pool, state('w-upsert', 's', { state_hash: 'h2', memories: 5, personal_sums: { ann: 'a1' } }));
    expect(await getSubject(pool, 'w-upsert', 's')).toEqual(state('w-upsert', 's', { state_hash: 'h2', memories: 5, personal_sums: { ann: 'a1' } }));
    // A row from before migration 0042 keeps none until its next compile.
    await upsertSubject(pool, state('w-upsert', 'old', { personal_sums: null }));
    expect((await getSubject(pool, 'w-upsert', 'old'))!.personal_sums).toBeNull();
  });
});

describe('restampSubjects', () => {
  it('stamps new policies on the subjects compiled under the old by this compiler, but those named', async () => {
    await upsertSubject(pool, state('w-restamp', 'a'));
    await upsertSubject(pool, state('w-restamp', 'affected'));
    await upsertSubject(pool, state('w-restamp', 'old-compiler', { compiler_version: 'c0' }));
    await upsertSubject(pool, state('w-restamp', 'older-policies', { policy_fingerprint: 'p0' }));
    await upsertSubject(pool, state('w-restamp-other', 'a'));
    expect(await restampSubjects(pool, 'w-restamp', 'p1', 'p2', 'c1', ['affected'])).toBe(1);
    const fingerprint = async (w: string, s: string) => (await getSubject(pool, w, s))!.policy_fingerprint;
    expect(await fingerprint('w-restamp', 'a')).toBe('p2');
    for (const s of ['affected', 'old-compiler']) expect(await fingerprint('w-restamp', s), s).toBe('p1');
    expect(await fingerprint('w-restamp', 'older-policies')).toBe('p0');
    expect(await fingerprint('w-restamp-other', 'a')).toBe('p1');
  });
});

describe('staleSubjects', () => {
  it('names the subjects compiled under another compiler version or other policies', async () => {
    await upsertSubject(pool, state('w-stale-1', 'current'));
    await upsertSubject(pool, state('w-stale-1', 'old-compiler', { compiler_version: 'c0' }));
    await upsertSubject(pool, state('w-stale-2', 'other-policies'));
    const stale = await staleSubjects(pool, 'c1', (w) => (w === 'w-stale-2' ? 'p2' : 'p1'));
    expect(stale.filter((s) => s.workspace_id.startsWith('w-stale-'))).toEqual([
      { workspace_id: 'w-stale-1', subject: 'old-compiler' },
      { workspace_id: 'w-stale-2', subject: 'other-policies' },
    ]);
  });
});

describe('subjectsOfWorkspace', () => {
  it('lists compiled subjects and those with episodes waiting, once each', async () => {
    await seeded('w-of-workspace');
    await markPending(pool, 'w-of-workspace', [{ subject: 's', episode_id: '00000000-0000-4000-8000-000000000009' }]);
    expect(await subjectsOfWorkspace(pool, 'w-of-workspace')).toEqual(['s', 't']);
    expect(await subjectsOfWorkspace(pool, 'w-empty')).toEqual([]);
  });
});

describe('subjectsAmong', () => {
  it('says which of these names are subjects of the workspace', async () => {
    await seeded('w-among');
    expect(await subjectsAmong(pool, 'w-among', ['t', 'nope', 's', 't'])).toEqual(['s', 't']);
    expect(await subjectsAmong(pool, 'w-among', [])).toEqual([]);
  });

  it('answers for one name as a statement of literals, as it does with parameters', async () => {
    await seeded('w-seen');
    const seen = async (workspace: string, subject: string) => (await pool.query<{ seen: boolean }>(subjectSeenStatement(workspace, subject))).rows[0]!.seen;
    for (const name of ['s', 't', 'nope', "it's \\ a; name"]) expect(await seen('w-seen', name)).toBe((await subjectsAmong(pool, 'w-seen', [name])).length === 1);
    expect(await seen('w-other', 's')).toBe(false);
  });
});

describe('listSubjects', () => {
  it('counts each subject\'s episodes, memories, pending episodes and open conflicts from the rows', async () => {
    await seeded('w-list');
    expect(await listSubjects(pool, 'w-list', '2030-01-01T00:00:00.000Z')).toEqual([
      { subject: 's', episodes: 3, memories: 2, pending: 0, open_conflicts: 1 },
      { subject: 't', episodes: 1, memories: 0, pending: 1, open_conflicts: 0 },
    ]);
    // Open conflicts are of the instant asked: before the dispute began there was none.
    expect((await listSubjects(pool, 'w-list', '1990-01-01T00:00:00.000Z')).map((s) => s.open_conflicts)).toEqual([0, 0]);
  });
});

describe('subjectsOfPredicates', () => {
  it('names the subjects holding memories of these predicates', async () => {
    await seeded('w-predicates');
    expect(await subjectsOfPredicates(pool, 'w-predicates', ['region', 'unknown'])).toEqual(['s']);
    expect(await subjectsOfPredicates(pool, 'w-predicates', ['unknown'])).toEqual([]);
    expect(await subjectsOfPredicates(pool, 'w-predicates', [])).toEqual([]);
  });
});

describe('subjectLogStates', () => {
  it('gives each subject with episodes its count, its compiled state and what waits', async () => {
    await seeded('w-log-states');
    const s = { subject: 's', episodes: 3, state_hash: 'h1', compiler_version: 'c1', policy_fingerprint: 'p1', pending: 0 };
    const t = { subject: 't', episodes: 1, state_hash: null, compiler_version: null, policy_fingerprint: null, pending: 1 };
    expect(await subjectLogStates(pool, 'w-log-states')).toEqual([s, t]);
    expect(await subjectLogStates(pool, 'w-log-states', { only: ['t', 'absent'] })).toEqual([t]);
  });
});
