import type { Claim, LineageVersion } from './claim.js';
import type { FactKey } from './fact-key.js';
import { canonicalJson, sha256 } from './hash.js';
import { compareStrings } from './normalize.js';
import type { Policy } from './policy.js';
import { compareInstants } from './order.js';
import { fold } from './fold.js';
import type { Timeline } from './timeline.js';

/**
 * The part of a timeline that is state (DESIGN §4): the key without the workspace id, the policy,
 * values with intervals, status, conditions and evidence referenced by (source, idempotency key,
 * claim index), dispositions and lineage events. No memory id, workspace id, ingest time,
 * revision-independent run data or reason wording: equal logs give equal bytes on any machine.
 */
function stateOf(t: Timeline): unknown {
  const ref = (r: { source: string; idempotency_key: string; index: number | null }) => [r.source, r.idempotency_key, r.index];
  const { scope, owner, subject, predicate, qualifiers } = t.fact_key;
  return {
    key: [scope, owner, subject, predicate, qualifiers],
    policy: t.policy,
    revision: t.revision,
    status: t.status_hint,
    values: t.values.map((v) => ({
      value: v.value,
      from: v.valid_from,
      to: v.valid_to,
      status: v.status,
      superseded_by: v.superseded_by,
      ended_by: v.ended_by ? [v.ended_by.kind, ...ref(v.ended_by)] : null,
      conditions: v.conditions,
      evidence: v.evidence.map(ref),
    })),
    dispositions: t.dispositions.map((d) => [ref(d.claim), d.kind, d.target ? ref(d.target) : null]),
    lineage_events: t.lineage_events.map((e) => [e.source, e.idempotency_key, e.at, e.effect]),
  };
}

/** Order-independent hash of a set of timelines (a subject's state). */
export function stateHash(timelines: readonly Timeline[]): string {
  const parts = timelines.map((t) => canonicalJson(stateOf(t))).sort(compareStrings);
  return sha256(`state/1|${canonicalJson(parts)}`);
}

/** The ETag of one memory: a hash of its whole timeline (ids and reasons included). */
export function timelineEtag(timeline: Timeline): string {
  return sha256(`etag/1|${canonicalJson(timeline)}`).slice(0, 32);
}

/**
 * Transaction-time travel (DESIGN §7): refold only what had been ingested by `transactionTime`.
 * Null when nothing on the key was known yet and no fact key was given.
 */
export function knownAt(
  claims: readonly Claim[],
  lineageVersions: readonly LineageVersion[],
  transactionTime: string,
  policy: Policy,
  factKey?: FactKey,
): Timeline | null {
  const known = claims.filter((c) => compareInstants(c.ingested_at, transactionTime) <= 0);
  const versions = lineageVersions.filter((v) => compareInstants(v.ingested_at, transactionTime) <= 0);
  if (known.length === 0 && !factKey) return null;
  return fold(known, policy, versions, factKey);
}
