// Given/when/then tables for the stories of design §4: claims in, timeline and view out.
import { describe, expect, it } from 'vitest';
import type { Claim, LineageVersion } from './claim.js';
import { fold } from './fold.js';
import type { Policy } from './policy.js';
import { DEFAULT_POLICY } from './policy.js';
import { claim, ref, versionOf } from './test-support.js';
import type { Timeline } from './timeline.js';
import { view } from './view.js';

const flag: Policy = DEFAULT_POLICY;
const staging = { predicate: 'deploy day', qualifiers: { env: 'staging' } };
const production = { predicate: 'deploy day', qualifiers: { env: 'production' } };
const freeze = { predicate: 'release freeze day' };
const team = { predicate: 'owning team' };

// The deployment-window story, one claim per line.
const twoAgents = [
  claim({ ...staging, key: 'a1', source: 'api', value: 'Tuesday', at: '2024-05-01T09:00:00Z', text: 'Staging deploys run on Tuesdays' }),
  claim({ ...staging, key: 'b1', source: 'mcp', value: 'Tuesday', at: '2024-05-01T10:00:00Z', text: 'We deploy staging every Tuesday' }),
];
const condition = claim({
  ...staging, key: 'm1', role: 'member', value: 'Tuesday', at: '2024-05-02T09:00:00Z',
  conditions: ['only after the integration tests pass'],
});
const laterDuplicate = claim({ ...staging, key: 'c1', value: 'Tuesday', at: '2024-05-03T09:00:00Z' });
const moveToThursday = claim({
  ...staging, key: 'x1', role: 'maintainer', value: 'Thursday', at: '2024-05-06T12:00:00Z', effective: '2024-05-13T00:00:00Z',
});
const oldTranscript = claim({
  ...staging, key: 't1', value: 'Tuesday', at: '2024-04-20T00:00:00Z', effective: '2024-04-20T00:00:00Z', ingested: '2024-05-20T00:00:00Z',
});
const schedule = [...twoAgents, condition, laterDuplicate, moveToThursday];

interface Row {
  story: string;
  given: Claim[];
  policy?: Policy;
  versions?: LineageVersion[];
  when: string;
  then: {
    status: ReturnType<typeof view>['status'];
    current: unknown[];
    scheduled?: unknown[];
    conditions?: string[];
    evidence?: number;
    support?: number;
    values?: Array<[unknown, Timeline['values'][number]['status'], ('change' | 'correction' | null)?]>;
  };
}

const rows: Row[] = [
  {
    story: 'the same schedule from two agents with different wording: one value, two pieces of evidence',
    given: twoAgents,
    when: '2024-05-01T12:00:00Z',
    then: { status: 'current', current: ['Tuesday'], evidence: 2, support: 2, values: [['Tuesday', 'in_force']] },
  },
  {
    story: 'a condition from sufficient standing enriches the value and survives a later duplicate',
    given: [...twoAgents, condition, laterDuplicate],
    when: '2024-05-04T00:00:00Z',
    then: { status: 'current', current: ['Tuesday'], conditions: ['only after the integration tests pass'], evidence: 4 },
  },
  {
    story: 'a maintainer moves staging to Thursday effective next week: Tuesday now, Thursday scheduled',
    given: schedule,
    when: '2024-05-07T00:00:00Z',
    then: { status: 'current', current: ['Tuesday'], scheduled: ['Thursday'] },
  },
  {
    story: 'after that date Thursday is current and Tuesday superseded by change',
    given: schedule,
    when: '2024-05-14T00:00:00Z',
    then: { status: 'current', current: ['Thursday'], scheduled: [], values: [['Tuesday', 'superseded', 'change'], ['Thursday', 'in_force']] },
  },
  {
    story: 'an older, explicitly dated Tuesday transcript arriving later lands in history: no reversal',
    given: [...schedule, oldTranscript],
    when: '2024-05-20T00:00:00Z',
    then: { status: 'current', current: ['Thursday'], values: [['Tuesday', 'superseded', 'change'], ['Thursday', 'in_force']] },
  },
  {
    story: 'the old transcript shows Tuesday as of its own date',
    given: [...schedule, oldTranscript],
    when: '2024-04-25T00:00:00Z',
    then: { status: 'current', current: ['Tuesday'], scheduled: ['Thursday'] },
  },
  {
    story: 'two agents of equal standing disagree with no time or correction: conflicted, both visible',
    given: [
      claim({ ...freeze, key: 'f1', value: 'Wednesday', at: '2024-05-01T09:00:00Z' }),
      claim({ ...freeze, key: 'f2', source: 'mcp', value: 'Friday', at: '2024-05-02T09:00:00Z' }),
    ],
    when: '2024-05-03T00:00:00Z',
    then: { status: 'conflicted', current: ['Wednesday', 'Friday'], values: [['Wednesday', 'disputed'], ['Friday', 'disputed']] },
  },
  {
    story: 'before the second claim the first agent’s value was simply current',
    given: [
      claim({ ...freeze, key: 'f1', value: 'Wednesday', at: '2024-05-01T09:00:00Z' }),
      claim({ ...freeze, key: 'f2', source: 'mcp', value: 'Friday', at: '2024-05-02T09:00:00Z' }),
    ],
    when: '2024-05-01T12:00:00Z',
    then: { status: 'current', current: ['Wednesday'], scheduled: ['Friday'] },
  },
  {
    story: 'a maintainer’s resolution naming both claims ends the conflict; the winner holds from the start',
    given: [
      claim({ ...freeze, key: 'f1', value: 'Wednesday', at: '2024-05-01T09:00:00Z' }),
      claim({ ...freeze, key: 'f2', source: 'mcp', value: 'Friday', at: '2024-05-02T09:00:00Z' }),
      claim({
        ...freeze, key: 'r1', role: 'maintainer', value: 'Friday', at: '2024-05-04T09:00:00Z', correction: true,
        settles: [{ source: 'api', idempotency_key: 'f1', index: 0 }, { source: 'mcp', idempotency_key: 'f2', index: 0 }],
      }),
    ],
    when: '2024-05-01T12:00:00Z',
    then: { status: 'current', current: ['Friday'], values: [['Wednesday', 'superseded', 'correction'], ['Friday', 'in_force']] },
  },
  {
    story: 'an agent’s guess contradicting a maintainer’s value is overruled: kept as evidence, changes nothing',
    given: [
      claim({ ...team, key: 'o1', role: 'maintainer', value: 'payments', at: '2024-05-01T09:00:00Z' }),
      claim({ ...team, key: 'o2', value: 'billing-core', at: '2024-05-02T09:00:00Z' }),
    ],
    when: '2024-05-03T00:00:00Z',
    then: { status: 'current', current: ['payments'], values: [['payments', 'in_force'], ['billing-core', 'overruled']] },
  },
];

function run(row: Row) {
  const timeline = fold(row.given, row.policy ?? flag, row.versions ?? row.given.map((c) => versionOf(c)));
  return { timeline, seen: view(timeline, row.when) };
}

describe('deployment window (given / when / then)', () => {
  it.each(rows)('$story', (row) => {
    const { timeline, seen } = run(row);
    expect(seen.status).toBe(row.then.status);
    expect(seen.current.map((v) => v.value)).toEqual(row.then.current);
    if (row.then.scheduled) expect(seen.scheduled.map((v) => v.value)).toEqual(row.then.scheduled);
    if (row.then.conditions) expect(seen.current[0]?.conditions).toEqual(row.then.conditions);
    if (row.then.evidence !== undefined) expect(seen.current[0]?.evidence).toHaveLength(row.then.evidence);
    if (row.then.support !== undefined) expect(seen.current[0]?.support).toBe(row.then.support);
    if (row.then.values) {
      expect(timeline.values.map((v) => [v.value, v.status, ...(v.superseded_by ? [v.superseded_by] : [])])).toEqual(row.then.values);
    }
    expect(timeline.revision).toBe(new Set(row.given.map((c) => JSON.stringify(ref(c)))).size);
  });

  it('a production schedule is a separate fact key: both hold', () => {
    const prod = claim({ ...production, key: 'p1', value: 'Friday', at: '2024-05-01T09:00:00Z' });
    const a = fold(schedule, flag, []);
    const b = fold([prod], flag, []);
    expect(a.memory_id).not.toBe(b.memory_id);
    expect(view(b, '2024-05-14T00:00:00Z').current.map((v) => v.value)).toEqual(['Friday']);
    expect(view(a, '2024-05-14T00:00:00Z').current.map((v) => v.value)).toEqual(['Thursday']);
    expect(() => fold([...schedule, prod], flag, [])).toThrow(/another fact key/);
  });

  it('the conflicted view names both sides and their sources, and the fold says who disputes whom', () => {
    const f1 = claim({ ...freeze, key: 'f1', value: 'Wednesday', at: '2024-05-01T09:00:00Z' });
    const f2 = claim({ ...freeze, key: 'f2', source: 'mcp', value: 'Friday', at: '2024-05-02T09:00:00Z' });
    const t = fold([f1, f2], flag, []);
    const v = view(t, '2024-05-03T00:00:00Z');
    expect(v.needs_verification).toBe(true);
    expect(v.conflict.map((s) => s.evidence[0]?.source)).toEqual(['api', 'mcp']);
    expect(t.status_hint).toBe('conflicted');
    expect(t.decisions[1]).toMatchObject({ claim: ref(f2), kind: 'disputes', target: ref(f1) });
  });

  it('decisions: duplicates point at the first claim, the change at what it replaced', () => {
    const t = fold(schedule, flag, []);
    const kinds = t.decisions.map((d) => [d.claim.idempotency_key, d.kind, d.target?.idempotency_key ?? null]);
    expect(kinds).toEqual([
      ['a1', 'superseded_by', 'x1'],
      ['b1', 'superseded_by', 'x1'],
      ['m1', 'superseded_by', 'x1'],
      ['c1', 'superseded_by', 'x1'],
      ['x1', 'changes', 'a1'],
    ]);
    expect(t.decisions[2]?.reason).toMatch(/adds conditions/);
  });
});

describe('pricing: a correction is retroactive, a later repeat is a duplicate of the winner', () => {
  const rate = { predicate: 'monthly rate', subject: 'vendor:acme' };
  const first = claim({ ...rate, key: 's1', source: 'sheet', role: 'connector', value: '$100', at: '2024-01-10T00:00:00Z' });
  const tier = claim({ predicate: 'support tier', subject: 'vendor:acme', key: 's1', index: 1, source: 'sheet', role: 'connector', value: 'gold', at: '2024-01-10T00:00:00Z' });
  const corrected = claim({ ...rate, key: 'k2', source: 'api', role: 'member', value: '$120', at: '2024-02-01T00:00:00Z', correction: true });
  const repeated = claim({ ...rate, key: 'k3', source: 'mcp', value: '$120', at: '2024-03-01T00:00:00Z' });
  const timeline = fold([first, corrected, repeated], flag, []);

  it.each([
    ['2024-01-15T00:00:00Z', ['$120']],
    ['2024-01-10T00:00:00Z', ['$120']],
    ['2024-02-15T00:00:00Z', ['$120']],
    ['2024-04-01T00:00:00Z', ['$120']],
  ])('as of %s the corrected rate shows', (at, current) => {
    expect(view(timeline, at).current.map((v) => v.value)).toEqual(current);
  });

  it('one supersession, marked as a correction; the repeat is a duplicate of the correction', () => {
    expect(timeline.values.map((v) => [v.value, v.status, v.superseded_by])).toEqual([
      ['$100', 'superseded', 'correction'],
      ['$120', 'in_force', null],
    ]);
    expect(timeline.decisions.find((d) => d.claim.idempotency_key === 'k3')).toMatchObject({
      kind: 'duplicate_of',
      target: ref(corrected),
    });
    expect(timeline.values[1]?.valid_from).toBe('2024-01-10T00:00:00.000Z');
  });

  it('the first source’s unrelated fact is untouched', () => {
    const t = fold([tier], flag, [versionOf(first, [first.key, tier.key])]);
    expect(view(t, '2024-04-01T00:00:00Z')).toMatchObject({ status: 'current', current: [{ value: 'gold', status: 'in_force' }] });
  });
});

describe('a file: one lineage, three snapshot versions', () => {
  const file = { source: 'workspace', lineage: 'workspace:docs/deploy.md', snapshot: true, role: 'connector' as const };
  const note = { predicate: 'note', qualifiers: { fingerprint: 'trunk' } };
  const v1 = [
    claim({ ...file, ...staging, key: 'v1', value: 'Tuesday', at: '2024-06-01T00:00:00Z' }),
    claim({ ...file, ...note, key: 'v1', index: 1, value: 'We use trunk-based development', at: '2024-06-01T00:00:00Z' }),
  ];
  const v2 = [
    claim({ ...file, ...staging, key: 'v2', value: 'Thursday', at: '2024-06-05T00:00:00Z' }),
    claim({ ...file, ...note, key: 'v2', index: 1, value: 'We use trunk-based development', at: '2024-06-05T00:00:00Z' }),
  ];
  const v3 = [claim({ ...file, ...staging, key: 'v3', value: 'Thursday', at: '2024-06-10T00:00:00Z' })];
  const versions = [
    versionOf(v1[0]!, [v1[0]!.key, v1[1]!.key]),
    versionOf(v2[0]!, [v2[0]!.key, v2[1]!.key]),
    versionOf(v3[0]!, [v3[0]!.key]),
  ];
  const schedule = [v1[0]!, v2[0]!, v3[0]!];
  const sentence = [v1[1]!, v2[1]!];

  it('version 2 edits the sentence: a change at its time, not a conflict', () => {
    const t = fold(schedule, flag, versions);
    expect(t.values.map((v) => [v.value, v.status, v.superseded_by, v.valid_to])).toEqual([
      ['Tuesday', 'superseded', 'change', '2024-06-05T00:00:00.000Z'],
      ['Thursday', 'in_force', null, null],
    ]);
    expect(t.values[1]?.support).toBe(1);
    expect(t.values[1]?.evidence).toHaveLength(2);
    expect(t.status_hint).toBe('in_force');
  });

  it('version 3 drops a sentence: it ends there and the memory is tombstoned after', () => {
    const t = fold(sentence, flag, versions);
    expect(t.values.map((v) => [v.status, v.valid_to, v.ended_by?.kind])).toEqual([['retracted', '2024-06-10T00:00:00.000Z', 'snapshot']]);
    expect(view(t, '2024-06-09T00:00:00Z').status).toBe('current');
    expect(view(t, '2024-06-11T00:00:00Z').status).toBe('tombstoned');
    expect(t.lineage_events).toMatchObject([{ idempotency_key: 'v3', effect: 'ended' }]);
  });
});
