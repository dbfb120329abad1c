import type { Claim, LineageVersion } from './claim.js';
import type { ClaimRef } from './episode.js';
import type { Json } from './normalize.js';
import { claimRef } from './claim.js';
import type { FactKey } from './fact-key.js';
import { factKeyString, memoryId } from './fact-key.js';
import { compareStrings, valueKey } from './normalize.js';
import type { Policy } from './policy.js';
import { compareClaims, compareInstants, compareVersions, orderClaims, orderVersions } from './order.js';
import type { Decision, EvidenceRef, LineageEvent, Timeline, TimelineStatus, TimelineValue } from './timeline.js';
import { FoldState, describe, maxStanding, sorted } from './fold-state.js';
import type { Entry } from './fold-state.js';
import { foldOne, historical, sameWriter, writerOf } from './fold-one.js';
import { foldMany } from './fold-many.js';
import { standingFor } from './standing.js';

export class FoldError extends Error {}

/** A snapshot version of a lineage that stops stating (all or some members of) the key. */
interface Drop {
  version: LineageVersion;
  /** Values the lineage stated before and no longer does; null = the whole key. */
  vkeys: string[] | null;
  standing: number;
}

type Step = { claim: Claim } | { drop: Drop };

const versionId = (x: { source: string; idempotency_key: string }) => JSON.stringify([x.source, x.idempotency_key]);

/**
 * Per lineage, the versions in order with the values each stated on this key (from the claims),
 * producing a drop wherever a snapshot version stops stating what the previous ones stated.
 * Versions the caller did not pass are rebuilt from the claims, so a claim alone is never lost.
 */
function lineageDrops(
  claims: readonly Claim[],
  key: string,
  versions: readonly LineageVersion[],
  cardinality: Policy['cardinality'],
): Drop[] {
  const lineages = new Set(claims.map((c) => c.lineage));
  const all = [...versions.filter((v) => lineages.has(v.lineage))];
  // Only a snapshot version drops anything: a key disputed by 10,000 plain messages has 10,000
  // lineages to walk for nothing.
  if (!all.some((v) => v.snapshot) && !claims.some((c) => c.snapshot)) return [];
  const known = new Set(all.map(versionId));
  const stated = new Map<string, Claim[]>();
  for (const c of claims) {
    const id = versionId(c);
    if (!known.has(id)) {
      known.add(id);
      const { lineage, source, idempotency_key, occurred_at, sequence, snapshot, ingested_at, role, author } = c;
      all.push({ lineage, source, idempotency_key, occurred_at, sequence, snapshot, ingested_at, role, author, keys: [key] });
    }
    const list = stated.get(id);
    if (list) list.push(c);
    else stated.set(id, [c]);
  }
  // Grouped once: a key restated by thousands of episodes has thousands of lineages, and only
  // those with a snapshot version are walked. A lineage is walked per writer (`sameWriter`): a
  // peer's version naming another writer's lineage states nothing of theirs, so what it leaves
  // out ends none of their values — it is the peer's own document, decided by the table.
  const byLineage = new Map<string, LineageVersion[]>();
  const walked = new Set<string>();
  for (const v of all) {
    const id = JSON.stringify([v.lineage, writerOf(v)]);
    const list = byLineage.get(id);
    if (list) list.push(v);
    else byLineage.set(id, [v]);
    if (v.snapshot) walked.add(id);
  }
  const drops: Drop[] = [];
  for (const lineage of [...walked].sort(compareStrings)) {
    // The values the lineage states so far, each with the highest standing of a version that
    // stated it. A version replaces only what its own standing reaches: what an agent's version
    // left out but could not end stays stated, for a later version of enough standing to end.
    let current = new Map<string, number>();
    for (const v of orderVersions(byLineage.get(lineage) ?? [])) {
      const own = stated.get(versionId(v)) ?? [];
      const values = new Set(own.filter((c) => c.op !== 'retract').map((c) => valueKey(c.value)));
      const states = own.length > 0 || v.keys.includes(key);
      const standing = standingFor(v.role);
      const replaced = () => {
        const next = new Map<string, number>();
        for (const k of values) next.set(k, Math.max(standing, current.get(k) ?? standing));
        for (const [k, held] of current) if (!values.has(k) && held > standing) next.set(k, held);
        return next;
      };
      if (v.snapshot) {
        // For a one-value key, a snapshot stating another value is a lineage change (the fold
        // decides it); only a key it no longer states at all ends. A many key loses each member
        // the snapshot leaves out.
        const gone = [...current.keys()].filter((k) => !values.has(k));
        if (current.size > 0 && (!states || (cardinality === 'many' && gone.length > 0))) {
          // The version's own standing, not the lineage's: an agent's newer version of a document
          // a maintainer wrote does not end the maintainer's fact (design §4, standing first).
          drops.push({ version: v, vkeys: states ? gone.sort(compareStrings) : null, standing });
        }
        current = replaced();
      } else if (cardinality === 'one') {
        if (values.size > 0) current = replaced();
      } else {
        for (const k of values) current.set(k, Math.max(standing, current.get(k) ?? standing));
      }
    }
  }
  return drops;
}

/**
 * A claim with an explicit future time whose lineage published a newer version (a snapshot, or one
 * restating the key) before that time never takes effect: the source changed its mind first. Its
 * own newer version only (`sameWriter`): a peer's cannot withdraw another writer's plan.
 */
function withdrawnBy(c: Claim, versionsOfLineage: ReadonlyMap<string, readonly LineageVersion[]>, key: string, claimVersionsOf: () => ReadonlySet<string>) {
  if (!c.effective_explicit) return null;
  const claimVersions = claimVersionsOf();
  return (
    (versionsOfLineage.get(c.lineage) ?? []).find(
      (v) =>
        compareVersions(c, v) < 0 &&
        compareInstants(v.occurred_at, c.effective_from) < 0 &&
        sameWriter(v, c) &&
        (v.snapshot || v.keys.includes(key) || claimVersions.has(versionId(v))),
    ) ?? null
  );
}

function stepTime(s: Step) {
  return 'claim' in s ? s.claim.effective_from : s.drop.version.occurred_at;
}
function stepSequence(s: Step) {
  return 'claim' in s ? s.claim.sequence : s.drop.version.sequence;
}

/** Drops and claims in one order: by time and sequence, a version's drop before claims at that time. */
function compareSteps(a: Step, b: Step): number {
  const t = compareInstants(stepTime(a), stepTime(b));
  if (t !== 0) return t;
  const sa = stepSequence(a);
  const sb = stepSequence(b);
  if (sa !== sb) return sa === null ? -1 : sb === null ? 1 : sa - sb;
  if ('drop' in a && 'drop' in b) return compareVersions(a.drop.version, b.drop.version);
  if ('drop' in a) return -1;
  if ('drop' in b) return 1;
  return compareClaims(a.claim, b.claim);
}

function applyDrop(s: FoldState, d: Drop, events: LineageEvent[]): void {
  const v = d.version;
  const targets = s
    .open()
    .filter((e) => e.evidence.some((x) => x.lineage === v.lineage && sameWriter(x, v)) && (d.vkeys === null || d.vkeys.includes(e.vkey)));
  const base = { lineage: v.lineage, source: v.source, idempotency_key: v.idempotency_key, at: v.occurred_at };
  if (targets.length === 0) {
    events.push({ ...base, effect: 'no_effect', reason: 'the version no longer states it, but nothing of this lineage is in force' });
    return;
  }
  const needed = Math.max(s.min, maxStanding(targets));
  if (d.standing < needed) {
    events.push({ ...base, effect: 'no_effect', reason: `the version no longer states it, but its standing ${d.standing} is below the value's ${needed}` });
    return;
  }
  for (const e of targets) {
    s.end(e, v.occurred_at, 'retracted', { kind: 'snapshot', source: v.source, idempotency_key: v.idempotency_key, index: null }, null);
  }
  events.push({ ...base, effect: 'ended', reason: `the newer version no longer states ${targets.map((e) => describe(e.value)).join(', ')}` });
}

export function evidenceRef(c: Claim): EvidenceRef {
  return {
    source: c.source,
    idempotency_key: c.idempotency_key,
    index: c.index,
    lineage: c.lineage,
    source_ref: c.source_ref,
    standing: c.standing,
    role: c.role,
    occurred_at: c.occurred_at,
    effective_from: c.effective_from,
    text: c.text,
    correction: c.correction,
  };
}

/**
 * A value's evidence: the references it already cites (a value carried over from a checkpoint),
 * then the claims the walk attached, which sort after them.
 */
export function withEvidence(refs: readonly EvidenceRef[], attached: readonly Claim[]): { evidence: EvidenceRef[]; support: number } {
  const evidence = [...refs, ...[...attached].sort(compareClaims).map(evidenceRef)];
  return { evidence, support: new Set(evidence.map((x) => x.lineage)).size };
}

export function toValue(e: Entry): TimelineValue {
  // A value whose first claims are in sealed blocks: its support is carried, and every claim the
  // resume attached is of a lineage it has not seen (`canResume`).
  const { evidence, support } =
    e.prior?.support === undefined
      ? withEvidence(e.prior?.refs ?? [], e.evidence)
      : { evidence: withEvidence(e.prior.refs, e.evidence).evidence, support: e.prior.support + new Set(e.evidence.map((c) => c.lineage)).size };
  return {
    value: e.value,
    valid_from: e.valid_from,
    valid_to: e.valid_to,
    status: e.status,
    superseded_by: e.superseded_by,
    ended_by: e.ended_by,
    conditions: sorted(e.conditions),
    standing: e.standing,
    support,
    evidence,
  };
}

/**
 * A claim's decision as the timeline shows it: what the walk decided, unless the value it went
 * to was later superseded — its fate is what the inspector shows first.
 */
export function finalDecision(c: ClaimRef, o: Omit<Decision, 'claim'> | undefined, fate: Entry | undefined): Decision {
  const d = o ?? { kind: 'no_effect' as const, target: null, reason: 'no effect' };
  if (fate && fate.status === 'superseded' && fate.ended_by && fate.ended_by.index !== null && d.kind !== 'overruled') {
    const by = { source: fate.ended_by.source, idempotency_key: fate.ended_by.idempotency_key, index: fate.ended_by.index };
    const how = fate.superseded_by === 'correction' ? 'corrected' : `changed at ${fate.valid_to}`;
    return { claim: claimRef(c), kind: 'superseded_by', target: by, reason: `${d.reason}; later ${how}` };
  }
  return { claim: claimRef(c), kind: d.kind, target: d.target, reason: d.reason };
}

/** The last entry each claim is evidence of, in the order the entries were made. */
export function fates(entries: readonly Entry[]): Map<Claim, Entry> {
  const fateOf = new Map<Claim, Entry>();
  for (const e of entries) for (const c of e.evidence) fateOf.set(c, e);
  return fateOf;
}

export function timelineStatus(open: number, cardinality: Policy['cardinality'], anyRetracted: () => boolean): TimelineStatus {
  return open > 1 && cardinality === 'one' ? 'conflicted' : open > 0 ? 'in_force' : anyRetracted() ? 'tombstoned' : 'empty';
}

/**
 * Where a later fold may pick up (design §4, docs/scaling.md): the last claim folded and, for each
 * value still open, where it stands in the timeline and what the decision table reads of its
 * claims beyond the references the timeline keeps — the value as its first claim spells it, each
 * author's highest standing, whether all were dated statements about the past. A claim that sorts
 * after `last` changes only what is open — closed values are never reopened — so folding it
 * against these values gives the fold of the whole set.
 */
export interface FoldCheckpoint {
  last: Claim;
  open: Array<{ at: number; value: Json; authors: Array<[string | null, number]>; historical: boolean }>;
}

/**
 * Authors a checkpoint may name for one value: past this many (a value restated by thousands of
 * keys of their own), the key folds from all its claims instead.
 */
export const CHECKPOINT_AUTHORS = 256;

/**
 * True when a claim cannot be folded from a checkpoint: a snapshot may end values of its lineage
 * that it does not mention, and a claim set to take effect after it was made may be withdrawn by a
 * later version of its lineage — both reach behind the open values.
 */
export function reachesBack(c: Claim): boolean {
  return c.snapshot || (c.effective_explicit && compareInstants(c.effective_from, c.occurred_at) > 0);
}

export function checkpointOf(policy: Policy, open: ReadonlyArray<{ at: number; entry: Entry }>, last: Claim): FoldCheckpoint | null {
  if (policy.cardinality !== 'one') return null;
  const out: FoldCheckpoint['open'] = [];
  for (const { at, entry } of open) {
    const authors = new Map(entry.prior?.authors ?? []);
    for (const c of entry.evidence) authors.set(c.author, Math.max(authors.get(c.author) ?? Number.NEGATIVE_INFINITY, c.standing));
    if (authors.size > CHECKPOINT_AUTHORS) return null;
    const named = [...authors].sort(([a], [b]) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : compareStrings(a, b)));
    out.push({ at, value: entry.value, authors: named, historical: historical(entry) });
  }
  return { last, open: out };
}

/**
 * The fold (design §4): a pure function of the *set* of claims on one fact key, the key's policy
 * and the versions of the lineages those claims came from. Duplicated and permuted inputs give
 * byte-identical timelines because the claims are de-duplicated and sorted into the total order
 * before the walk, and every later decision reads only that order. It never reads the clock.
 *
 * `factKey` is needed only to fold an empty set (e.g. `knownAt` before the first claim).
 */
export function fold(claims: readonly Claim[], policy: Policy, lineageVersions: readonly LineageVersion[], factKey?: FactKey): Timeline {
  return walk(claims, policy, lineageVersions, factKey, false).timeline;
}

/** The fold, and where a later fold may resume from it (null where none may: `reachesBack`). */
export function foldWithCheckpoint(
  claims: readonly Claim[],
  policy: Policy,
  lineageVersions: readonly LineageVersion[],
  factKey?: FactKey,
): { timeline: Timeline; checkpoint: FoldCheckpoint | null } {
  return walk(claims, policy, lineageVersions, factKey, true);
}

/** The fold; with `withCheckpoint`, its checkpoint too (a reader folding for a view needs none). */
function walk(
  claims: readonly Claim[],
  policy: Policy,
  lineageVersions: readonly LineageVersion[],
  factKey: FactKey | undefined,
  withCheckpoint: boolean,
): { timeline: Timeline; checkpoint: FoldCheckpoint | null } {
  const ordered = orderClaims(claims);
  const fk = ordered[0]?.fact_key ?? factKey;
  if (!fk) throw new FoldError('fold needs at least one claim or a fact key');
  const key = factKeyString(fk);
  for (const c of ordered) {
    if (c.key !== key) throw new FoldError(`claim ${c.source}/${c.idempotency_key}#${c.index} is on another fact key`);
  }
  const versions = orderVersions(lineageVersions);
  const s = new FoldState(policy);
  const events: LineageEvent[] = [];
  const steps: Step[] = [...ordered.map((claim) => ({ claim })), ...lineageDrops(ordered, key, versions, policy.cardinality).map((drop) => ({ drop }))];
  steps.sort(compareSteps);

  const versionsOfLineage = new Map<string, LineageVersion[]>();
  for (const v of versions) {
    const list = versionsOfLineage.get(v.lineage);
    if (list) list.push(v);
    else versionsOfLineage.set(v.lineage, [v]);
  }
  // Read only for a claim with an explicit time: built on first need.
  let claimVersions: Set<string> | null = null;
  const claimVersionsOf = () => (claimVersions ??= new Set(ordered.map(versionId)));
  for (const step of steps) {
    if ('drop' in step) {
      applyDrop(s, step.drop, events);
      continue;
    }
    const c = step.claim;
    const gone = withdrawnBy(c, versionsOfLineage, key, claimVersionsOf);
    if (gone) {
      s.record(c, 'no_effect', null, `withdrawn: version ${gone.source}/${gone.idempotency_key} of its lineage came out before ${c.effective_from}`);
      continue;
    }
    if (policy.cardinality === 'many') foldMany(s, c);
    else foldOne(s, c);
  }

  const open = s.open();
  for (const e of open) e.status = policy.cardinality === 'one' && open.length > 1 ? 'disputed' : 'in_force';

  const fateOf = fates(s.entries);
  const decisions: Decision[] = ordered.map((c) => finalDecision(c, s.decisions.get(c), fateOf.get(c)));
  const status = timelineStatus(open.length, policy.cardinality, () => s.entries.some((e) => e.status === 'retracted'));

  const timeline: Timeline = {
    memory_id: memoryId(fk.workspace_id, fk),
    key,
    fact_key: fk,
    policy: { cardinality: policy.cardinality, mode: policy.mode, min_role: policy.min_role },
    values: s.entries.map(toValue),
    decisions,
    lineage_events: events,
    revision: ordered.length,
    status_hint: status,
  };
  const last = ordered.at(-1);
  // A snapshot version of one of the key's lineages may end what the checkpoint holds open; one of
  // another lineage never touches the key (and a compile is handed only its claims' lineages).
  const lineagesOfKey = new Set(ordered.map((c) => c.lineage));
  const resumable =
    withCheckpoint &&
    last !== undefined &&
    !ordered.some(reachesBack) &&
    !versions.some((v) => v.snapshot && lineagesOfKey.has(v.lineage));
  const checkpoint = resumable ? checkpointOf(policy, open.map((entry) => ({ at: s.entries.indexOf(entry), entry })), last) : null;
  return { timeline, checkpoint };
}
