/**
 * The evaluation workload: episode histories written together with their ground truth. The
 * truth is what the generator *meant* (this history says the deploy day is Thursday, with this
 * condition, or that two agents disagree) — never computed by Canon's fold.
 *
 * Every episode carries one structured claim with its own wording (`text`), so text-only
 * systems see a sentence and Canon sees the claim; each scenario lives in a subject of its own.
 */

export type Role = 'agent' | 'member' | 'maintainer' | 'owner';

export interface ClaimSpec {
  predicate: string;
  qualifiers?: Record<string, string>;
  value?: string;
  conditions?: string[];
  op?: 'assert' | 'retract';
  correction?: boolean;
  effective_from?: string;
  text: string;
}

export interface GeneratedEpisode {
  role: Role;
  /** The fact (ground-truth id) the claim is about. */
  fact: string;
  /** Episodes of one group arrive together, concurrently (racing writers). */
  group?: string;
  /** Arrives after everything else in the natural order (re-ingest, old evidence found late). */
  late?: boolean;
  episode: {
    idempotency_key: string;
    subject: string;
    source: string;
    kind: 'claim';
    occurred_at: string;
    body: { claims: [ClaimSpec] };
  };
}

export interface FactTruth {
  id: string;
  scenario: Scenario;
  subject: string;
  predicate: string;
  qualifiers: Record<string, string>;
  /** What holds at the evaluation instant: one value, or every side of an open disagreement. */
  current: Array<{ value: string; conditions: string[] }>;
  conflict: boolean;
  /** Values stated in the history that do not hold at the instant (replaced, overruled, retracted, not yet effective). */
  not_current: string[];
}

export interface Workload {
  seed: number;
  /** The instant every system is asked about. */
  at: string;
  episodes: GeneratedEpisode[];
  facts: FactTruth[];
}

export const SCENARIOS = [
  'repeated-delivery',
  'late-reingest',
  'independent-sources',
  'paraphrase',
  'enrichment',
  'correction',
  'future-change',
  'late-old-evidence',
  'lower-authority',
  'equal-disagreement',
  'distinct-qualifiers',
  'retraction',
  'concurrent-writers',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export const EVAL_AT = '2025-06-01T00:00:00.000Z';

/** mulberry32: a small seeded generator, so a workload and its arrival orders replay exactly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const FACTS = [
  { predicate: 'deploy day', values: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'] },
  { predicate: 'owning team', values: ['payments', 'platform', 'billing-core', 'identity', 'growth'] },
  { predicate: 'primary region', values: ['eu-west-1', 'us-east-1', 'ap-south-1', 'eu-central-1'] },
  { predicate: 'alert channel', values: ['#ops-alerts', '#billing-oncall', '#sre-pager', '#infra-warnings'] },
  { predicate: 'database engine', values: ['PostgreSQL 16', 'PostgreSQL 15', 'MySQL 8', 'CockroachDB 23'] },
];
const CONDITIONS = [
  'only after the integration tests pass',
  'only with a second reviewer',
  'never during the quarterly freeze',
  'only when the error budget is positive',
  'only after the canary is green',
];
const WORDINGS = [
  (p: string, s: string, v: string) => `The ${p} of ${s} is ${v}`,
  (p: string, s: string, v: string) => `${s} has ${v} as its ${p}`,
  (p: string, s: string, v: string) => `For ${s} we use ${v} as the ${p}`,
  (p: string, s: string, v: string) => `${v} is what ${s} uses for ${p}`,
];

/**
 * Generates `perScenario` instances of every scenario. Times are spread over 2025-01 … 2025-05;
 * the evaluation instant is 2025-06-01; scheduled changes take effect in July.
 */
export function generateWorkload(seed: number, perScenario: number): Workload {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const two = <T>(xs: readonly T[]): [T, T] => {
    const a = pick(xs);
    let b = pick(xs);
    while (b === a) b = pick(xs);
    return [a, b];
  };
  const episodes: GeneratedEpisode[] = [];
  const facts: FactTruth[] = [];

  let n = 0;
  for (const scenario of SCENARIOS) {
    for (let i = 0; i < perScenario; i += 1) {
      n += 1;
      const subject = `eval:${scenario}-${i}`;
      const label = `service ${scenario}-${i}`;
      const spec = pick(FACTS);
      const p = spec.predicate;
      const day = (d: number, h = 9) => new Date(Date.UTC(2025, 0, 1 + (n % 60) + d, h)).toISOString();
      const t0 = Math.floor(random() * 20);
      let k = 0;
      const ep = (role: Role, claim: Omit<ClaimSpec, 'predicate'> & { predicate?: string }, at: string, extra: Partial<Pick<GeneratedEpisode, 'group' | 'late'>> & { source?: string; fact?: string } = {}) => {
        k += 1;
        const q = claim.qualifiers ?? {};
        const fact = extra.fact ?? factId(subject, p, q);
        const e: GeneratedEpisode = {
          role,
          fact,
          ...(extra.group ? { group: extra.group } : {}),
          ...(extra.late ? { late: true } : {}),
          episode: {
            idempotency_key: `${subject}#${k}`,
            subject,
            source: extra.source ?? 'api',
            kind: 'claim',
            occurred_at: at,
            body: { claims: [{ predicate: p, ...claim }] },
          },
        };
        episodes.push(e);
        return e;
      };
      const truth = (current: FactTruth['current'], notCurrent: string[] = [], conflict = false, qualifiers: Record<string, string> = {}) =>
        facts.push({ id: factId(subject, p, qualifiers), scenario, subject, predicate: p, qualifiers, current, conflict, not_current: notCurrent });
      const say = (v: string, w = 0) => WORDINGS[w]!(p, label, v);

      switch (scenario) {
        case 'repeated-delivery': {
          const v = pick(spec.values);
          const e = ep('agent', { value: v, text: say(v) }, day(t0));
          episodes.push(structuredClone(e), structuredClone(e));
          truth([{ value: v, conditions: [] }]);
          break;
        }
        case 'late-reingest': {
          const v = pick(spec.values);
          const e = ep('agent', { value: v, text: say(v) }, day(t0));
          episodes.push({ ...structuredClone(e), late: true });
          truth([{ value: v, conditions: [] }]);
          break;
        }
        case 'independent-sources': {
          const v = pick(spec.values);
          ep('agent', { value: v, text: say(v, 0) }, day(t0), { source: 'api' });
          ep('agent', { value: v, text: say(v, 1) }, day(t0 + 2), { source: 'mcp' });
          ep('member', { value: v, text: say(v, 2) }, day(t0 + 4), { source: 'slack' });
          truth([{ value: v, conditions: [] }]);
          break;
        }
        case 'paraphrase': {
          const v = pick(spec.values);
          for (let w = 0; w < WORDINGS.length; w += 1) ep('agent', { value: v, text: say(v, w) }, day(t0 + w));
          truth([{ value: v, conditions: [] }]);
          break;
        }
        case 'enrichment': {
          const v = pick(spec.values);
          const c = pick(CONDITIONS);
          ep('agent', { value: v, text: say(v) }, day(t0));
          ep('member', { value: v, conditions: [c], text: `${say(v)}, ${c}` }, day(t0 + 2));
          ep('agent', { value: v, text: say(v) }, day(t0 + 5), { source: 'mcp' });
          truth([{ value: v, conditions: [c] }]);
          break;
        }
        case 'correction': {
          const [v1, v2] = two(spec.values);
          ep('agent', { value: v1, text: say(v1) }, day(t0));
          ep('maintainer', { value: v2, correction: true, text: `Correction: ${say(v2)}` }, day(t0 + 3));
          truth([{ value: v2, conditions: [] }], [v1]);
          break;
        }
        case 'future-change': {
          const [v1, v2] = two(spec.values);
          ep('maintainer', { value: v1, text: say(v1) }, day(t0));
          const july = new Date(Date.UTC(2025, 6, 1 + (i % 20))).toISOString();
          ep('maintainer', { value: v2, effective_from: july, text: `From ${july.slice(0, 10)} ${say(v2).replace(/^The/, 'the')}` }, day(t0 + 10));
          truth([{ value: v1, conditions: [] }], [v2]);
          break;
        }
        case 'late-old-evidence': {
          const [v1, v2] = two(spec.values);
          ep('member', { value: v1, effective_from: day(t0 + 5), text: say(v1) }, day(t0 + 5));
          ep('maintainer', { value: v2, effective_from: day(t0 + 30), text: `Starting ${day(t0 + 30).slice(0, 10)} ${say(v2).replace(/^The/, 'the')}` }, day(t0 + 30));
          ep('agent', { value: v1, effective_from: day(t0), text: `Meeting notes: ${say(v1).replace(/^The/, 'the')}` }, day(t0), { late: true, source: 'mcp' });
          truth([{ value: v2, conditions: [] }], [v1]);
          break;
        }
        case 'lower-authority': {
          const [v1, v2] = two(spec.values);
          ep('maintainer', { value: v1, text: say(v1) }, day(t0));
          ep('agent', { value: v2, text: say(v2) }, day(t0 + 4));
          truth([{ value: v1, conditions: [] }], [v2]);
          break;
        }
        case 'equal-disagreement': {
          const [v1, v2] = two(spec.values);
          ep('agent', { value: v1, text: say(v1) }, day(t0), { source: 'api' });
          ep('agent', { value: v2, text: say(v2) }, day(t0 + 3), { source: 'mcp' });
          truth([{ value: v1, conditions: [] }, { value: v2, conditions: [] }], [], true);
          break;
        }
        case 'distinct-qualifiers': {
          // Half the time both environments have the same value: only the qualifier tells them apart.
          const [va, vb] = random() < 0.5 ? [pick(spec.values), null] : two(spec.values);
          const vProd = vb ?? va;
          const staging = { env: 'staging' };
          const production = { env: 'production' };
          ep('agent', { qualifiers: staging, value: va, text: `The ${p} of ${label} in staging is ${va}` }, day(t0), { fact: factId(subject, p, staging) });
          ep('agent', { qualifiers: production, value: vProd, text: `The ${p} of ${label} in production is ${vProd}` }, day(t0 + 1), {
            fact: factId(subject, p, production),
          });
          truth([{ value: va, conditions: [] }], [], false, staging);
          truth([{ value: vProd, conditions: [] }], [], false, production);
          break;
        }
        case 'retraction': {
          const v = pick(spec.values);
          ep('member', { value: v, text: say(v) }, day(t0));
          ep('member', { value: v, op: 'retract', text: `No longer true: ${say(v)}` }, day(t0 + 6));
          truth([], [v]);
          break;
        }
        case 'concurrent-writers': {
          const v = pick(spec.values);
          const [c1, c2] = two(CONDITIONS);
          ep('agent', { value: v, text: say(v) }, day(t0));
          ep('member', { value: v, conditions: [c1], text: `${say(v)}, ${c1}` }, day(t0 + 2), { group: `${subject}:race` });
          ep('member', { value: v, conditions: [c2], text: `${say(v)}, ${c2}` }, day(t0 + 2, 10), { group: `${subject}:race`, source: 'mcp' });
          truth([{ value: v, conditions: [c1, c2].sort() }]);
          break;
        }
      }
    }
  }
  return { seed, at: EVAL_AT, episodes, facts };
}

export function factId(subject: string, predicate: string, qualifiers: Record<string, string>): string {
  const q = Object.keys(qualifiers)
    .sort()
    .map((k) => `${k}=${qualifiers[k]}`)
    .join(',');
  return `${subject}|${predicate}|${q}`;
}

/**
 * Arrival orders. Order 0 is the natural one: by occurred_at, with the `late` episodes (a
 * re-ingest, old evidence found late) at the end. The others are seeded shuffles; racing
 * writers stay together as one arrival.
 */
export function arrivalOrders(workload: Workload, count: number): GeneratedEpisode[][][] {
  const arrivals: GeneratedEpisode[][] = [];
  const groups = new Map<string, GeneratedEpisode[]>();
  for (const e of workload.episodes) {
    if (!e.group) {
      arrivals.push([e]);
      continue;
    }
    const g = groups.get(e.group);
    if (g) g.push(e);
    else {
      const fresh = [e];
      groups.set(e.group, fresh);
      arrivals.push(fresh);
    }
  }
  const at = (a: GeneratedEpisode[]) => a[0]!.episode.occurred_at;
  const natural = [...arrivals].sort((a, b) => Number(a[0]!.late ?? false) - Number(b[0]!.late ?? false) || (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
  const out = [natural];
  const random = rng(workload.seed * 7919 + 1);
  for (let i = 1; i < count; i += 1) out.push(shuffle(arrivals, random));
  return out;
}
