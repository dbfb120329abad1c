import type { Role } from '@canon/core';

/** An episode as posted, with the role and the user of the key that posts it. */
export interface StoryStep {
  role: Role;
  /** The person behind the key: a later statement of the same user is an update (design §4). */
  user: string;
  episode: Record<string, unknown>;
}

/** One key per (role, user): how a test names the key that posts a step. */
export function actorName(step: Pick<StoryStep, 'role' | 'user'>): string {
  return `${step.role}:${step.user}`;
}

/** The distinct authors of some steps, to create one key each. */
export function storyActors(steps: readonly StoryStep[]): Array<Pick<StoryStep, 'role' | 'user'>> {
  const seen = new Map(steps.map((s) => [actorName(s), { role: s.role, user: s.user }] as const));
  return [...seen.values()];
}

const staging = { predicate: 'deploy day', qualifiers: { env: 'staging' } };
const claimEp = (key: string, at: string, claim: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject: 'service:billing',
  occurred_at: at,
  kind: 'claim',
  body: { claims: [claim] },
  ...extra,
});

/**
 * The deployment-window story of design §4 as episodes posted over the API: two agents say the
 * same thing, a member adds a condition, a maintainer moves staging to Thursday from a date,
 * an old transcript arrives late, production is another key, two agents disagree on the
 * freeze day, and an agent contradicts a maintainer on the owning team.
 */
export function deploymentStory(): StoryStep[] {
  return [
    { role: 'agent', user: 'ava', episode: claimEp('a1', '2024-05-01T09:00:00Z', { ...staging, value: 'Tuesday', text: 'Staging deploys run on Tuesdays' }) },
    { role: 'agent', user: 'ben', episode: claimEp('b1', '2024-05-01T10:00:00Z', { ...staging, value: 'Tuesday', text: 'We deploy staging every Tuesday' }, { source: 'mcp' }) },
    {
      role: 'member', user: 'mia',
      episode: claimEp('m1', '2024-05-02T09:00:00Z', { ...staging, value: 'Tuesday', conditions: ['only after the integration tests pass'] }),
    },
    { role: 'agent', user: 'cal', episode: claimEp('c1', '2024-05-03T09:00:00Z', { ...staging, value: 'Tuesday' }) },
    {
      role: 'maintainer', user: 'max',
      episode: claimEp('x1', '2024-05-06T12:00:00Z', { ...staging, value: 'Thursday', effective_from: '2024-05-13T00:00:00Z' }),
    },
    {
      role: 'agent', user: 'tess',
      episode: claimEp('t1', '2024-04-20T00:00:00Z', { ...staging, value: 'Tuesday', effective_from: '2024-04-20T00:00:00Z' }),
    },
    { role: 'agent', user: 'ava', episode: claimEp('p1', '2024-05-01T09:00:00Z', { predicate: 'deploy day', qualifiers: { env: 'production' }, value: 'Friday' }) },
    { role: 'agent', user: 'ava', episode: claimEp('f1', '2024-05-01T09:00:00Z', { predicate: 'release freeze day', value: 'Wednesday' }) },
    { role: 'agent', user: 'ben', episode: claimEp('f2', '2024-05-02T09:00:00Z', { predicate: 'release freeze day', value: 'Friday' }, { source: 'mcp' }) },
    { role: 'maintainer', user: 'max', episode: claimEp('o1', '2024-05-01T09:00:00Z', { predicate: 'owning team', value: 'payments' }) },
    { role: 'agent', user: 'cal', episode: claimEp('o2', '2024-05-02T09:00:00Z', { predicate: 'owning team', value: 'billing-core' }) },
  ];
}

/** The maintainer's resolution of the freeze-day dispute, naming both claims it settles. */
export function freezeResolution(): StoryStep {
  return {
    role: 'maintainer', user: 'max',
    episode: claimEp('r1', '2024-05-04T09:00:00Z', {
      predicate: 'release freeze day',
      value: 'Friday',
      correction: true,
      settles: [
        { source: 'api', idempotency_key: 'f1', index: 0 },
        { source: 'mcp', idempotency_key: 'f2', index: 0 },
      ],
    }),
  };
}

/** A deterministic shuffle (mulberry32), so a failing order can be replayed from its seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
