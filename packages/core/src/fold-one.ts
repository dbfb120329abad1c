import type { Claim } from './claim.js';
import type { ClaimRef } from './episode.js';
import { sameRef } from './claim.js';
import { valueKey } from './normalize.js';
import { compareInstants, compareVersions } from './order.js';
import type { Entry, FoldState } from './fold-state.js';
import { describe, endRef, maxStanding, who } from './fold-state.js';
import { maxSides } from './policy.js';

/**
 * True when `c` is a newer version of a lineage that supports `e`: a source restating its own
 * fact differently (a file edited, an issue updated) — a change, not a disagreement. Its own: the
 * same writer wrote both (`sameWriter`). A lineage is a name anyone can write, and a peer naming
 * another writer's (its default `api:<key>` is in the log for every role to read) replaced that
 * writer's value as its "newer version" instead of disputing it.
 */
export function lineageLink(c: Claim, e: Entry): boolean {
  if (e.evidence.some((x) => x.lineage === c.lineage && sameWriter(x, c) && compareVersions(x, c) < 0)) return true;
  // A reference has no sequence: `canResume` refuses a claim whose lineage and time tie with one.
  // Nor does it name its author: only a connector's (its source) is told here, and `canResume`
  // refuses a claim of a lineage an open value's other references share.
  return e.prior?.refs.some((x) => x.lineage === c.lineage && sameConnector(x, c) && compareInstants(x.occurred_at, c.occurred_at) < 0) ?? false;
}

/**
 * Whether two claims are one writer's: a connector's by its source (its keys may rotate; only keys
 * bound to the source write it), anyone else's by the author. Rows from before keys were recorded
 * name no author (no user, no key): two of one source are read as one writer's, as they were.
 */
export function sameWriter(x: Pick<Claim, 'role' | 'source' | 'author'>, c: Pick<Claim, 'role' | 'source' | 'author'>): boolean {
  return writerOf(x) === writerOf(c);
}

/** The writer `sameWriter` compares, as a string: equal exactly when `sameWriter` holds. */
export function writerOf(x: Pick<Claim, 'role' | 'source' | 'author'>): string {
  if (x.role === 'connector') return `connector\u0000${x.source}`;
  return x.author === null ? `source\u0000${x.source}` : `author\u0000${x.author}`;
}

export function sameConnector(x: Pick<Claim, 'role' | 'source'>, c: Pick<Claim, 'role' | 'source'>): boolean {
  return x.role === 'connector' && c.role === 'connector' && x.source === c.source;
}

/**
 * True when every claim of `e` that `c` does not outrank was stated by `c`'s author: the value in
 * force is the author's own, so a later statement of theirs is an update, not a disagreement.
 */
export function sameAuthor(c: Claim, e: Entry): boolean {
  if (c.author === null) return false;
  if (!e.evidence.every((x) => x.standing < c.standing || x.author === c.author)) return false;
  if (!e.prior) return true;
  for (const [author, standing] of e.prior.authors) if (standing >= c.standing && author !== c.author) return false;
  return true;
}

/**
 * True when `e` stands only on dated statements about the past ("as of 2019", "a 2017 spreadsheet
 * says"): a record of history, which a plain statement of the present from an equal moves past.
 */
export function historical(e: Pick<Entry, 'evidence' | 'prior'>): boolean {
  return (e.prior?.historical ?? true) && e.evidence.every((x) => x.effective_explicit && compareInstants(x.effective_from, x.occurred_at) < 0);
}

type Relation = 'correct' | 'change' | 'dispute';

/**
 * How a claim of sufficient standing relates to one open value it differs from (design §4, in
 * this order): a correction replaces it retroactively (a correction naming claims replaces only the
 * values those claims support); a newer version of the value's lineage is a change; standing
 * above the value's is a change; two different values of equal standing from the same instant are
 * a disagreement; an explicit time, a `supersede` policy, the value's own author or a value that
 * is only a record of the past make a change at the claim's time; anything else disputes.
 */
function relate(s: FoldState, c: Claim, e: Entry): Relation {
  const named = c.settles.length === 0 || settlesClaimOf(c, e);
  if (c.correction && named) return 'correct';
  if (lineageLink(c, e)) return 'change';
  if (c.standing > e.standing) return 'change';
  if (compareInstants(c.effective_from, e.valid_from) === 0) return 'dispute';
  if (c.effective_explicit || s.policy.mode === 'supersede') return 'change';
  if (sameAuthor(c, e) || historical(e)) return 'change';
  return 'dispute';
}

/** Whether a claim names, among those it settles, one of the claims a value stands on. */
function settlesClaimOf(c: Claim, e: Entry): boolean {
  const cites = (x: ClaimRef) => c.settles.some((r) => sameRef(r, x));
  return e.evidence.some(cites) || (e.prior?.refs.some(cites) ?? false);
}

function why(s: FoldState, c: Claim, e: Entry): string {
  if (lineageLink(c, e)) return `newer version of lineage ${c.lineage}`;
  if (c.standing > e.standing) return `standing ${c.standing} above the value's ${e.standing}`;
  if (c.effective_explicit) return `explicit effective time ${c.effective_from}`;
  if (s.policy.mode === 'supersede') return `a later claim under the "supersede" policy`;
  if (sameAuthor(c, e)) return `a later statement of the value's author ${c.author}`;
  return 'the value stood only on dated statements about the past';
}

/** One claim on a cardinality-one key. */
export function foldOne(s: FoldState, c: Claim): void {
  if (c.op === 'retract') return retract(s, c);
  const vkey = valueKey(c.value);
  const open = s.open();
  const match = open.find((e) => e.vkey === vkey);
  const others = open.filter((e) => e !== match);

  if (others.length === 0) {
    if (match) return s.attach(match, c);
    if (c.standing < s.min) {
      s.overruled(c, c.value, vkey);
      return s.record(c, 'overruled', null, `standing ${c.standing} is below the policy minimum ${s.min}`);
    }
    s.add(c, c.value, vkey, c.effective_from, 'in_force', true);
    return s.record(c, 'supports', null, `sets ${describe(c.value)} from ${c.effective_from}`);
  }

  // A different value than (some of) what holds: sufficient standing is at least the policy's
  // minimum and the standing of every value it would replace.
  const needed = Math.max(s.min, maxStanding(others));
  if (c.standing < needed) {
    if (match) return s.attach(match, c);
    const strongest = others.reduce((a, b) => (b.standing > a.standing ? b : a));
    s.overruled(c, c.value, vkey);
    return s.record(
      c,
      'overruled',
      strongest.first,
      // Every value it would replace is named: in a dispute, that is each side (at most `max_sides`).
      `${who(c)} differs from ${others.map((e) => describe(e.value)).join(' and ')} but needs standing ${needed}; kept as evidence, changes nothing`,
    );
  }

  const relations = others.map((e) => [e, relate(s, c, e)] as const);
  const corrected = relations.filter(([, r]) => r === 'correct').map(([e]) => e);
  const changed = relations.filter(([, r]) => r === 'change').map(([e]) => e);
  const disputed = relations.filter(([, r]) => r === 'dispute').map(([e]) => e);

  // Bounded sides: a value that would only open one more side of a full dispute is evidence of
  // it — its decision names the dispute — and never a value of the timeline, so 10,000
  // distinct values on one key cost 10,000 decisions, not 10,000 values to write and hash.
  const limit = maxSides(s.policy);
  if (!match && corrected.length === 0 && changed.length === 0 && open.length >= limit) {
    return s.record(
      c,
      'disputes',
      disputed[0]!.first,
      `${who(c)} states ${describe(c.value)}; the dispute already has ${open.length} sides (max_sides ${limit}), so it is kept as evidence of it`,
    );
  }

  const reasons: string[] = [];
  for (const e of changed) {
    reasons.push(`ends ${describe(e.value)} at ${c.effective_from} (${why(s, c, e)})`);
    s.end(e, c.effective_from, 'superseded', endRef('change', c), 'change');
  }
  // The corrected value holds from the wrong value's start; the wrong value keeps the interval in
  // which it was believed (visible through known_at) and is never current at any instant.
  let start = c.effective_from;
  for (const e of corrected) {
    reasons.push(`corrects ${describe(e.value)} (held from ${e.valid_from}) retroactively`);
    if (compareInstants(e.valid_from, start) < 0) start = e.valid_from;
    s.end(e, c.effective_from, 'superseded', endRef('correction', c), 'correction');
  }
  // A resolution also settles a side of its dispute that closed since the dispute began (its
  // author changed it): named by the claims it settles, it was wrong too, and left as it was it
  // would stand beside the winner in the history, a dispute no one had (design §4, resolution).
  // Standing first: only a side the resolution could have replaced — changed by its author (not
  // retracted, not overruled), of no higher standing than the resolution — whatever `settles` names.
  if (corrected.length > 0 && c.settles.length > 0) {
    for (const e of s.entries) {
      if (e.open || e.superseded_by !== 'change' || e.standing > c.standing || e.vkey === vkey) continue;
      if (!settlesClaimOf(c, e)) continue;
      reasons.push(`corrects ${describe(e.value)} (held from ${e.valid_from}) retroactively`);
      if (compareInstants(e.valid_from, start) < 0) start = e.valid_from;
      e.superseded_by = 'correction';
    }
  }

  let target: Entry;
  if (match) {
    s.attach(match, c);
    if (compareInstants(start, match.valid_from) < 0) match.valid_from = start;
    target = match;
  } else {
    target = s.add(c, c.value, vkey, start, 'in_force', true);
  }
  for (const e of disputed) reasons.push(`disputes ${describe(e.value)} (no explicit time, correction or lineage link)`);

  const text = `${who(c)} states ${describe(target.value)}: ${reasons.join('; ')}`;
  if (corrected.length > 0) {
    s.record(c, c.settles.length > 0 ? 'settles' : 'corrects', corrected[0]!.first, text);
  } else if (changed.length > 0) {
    s.record(c, 'changes', changed[0]!.first, text);
  } else if (match) {
    s.record(c, 'duplicate_of', match.first, `same value ${describe(match.value)} again; the disagreement stays open`);
  } else {
    s.record(c, 'disputes', disputed[0]!.first, text);
  }
}

function retract(s: FoldState, c: Claim): void {
  const open = s.open();
  const targets = c.value === null ? open : open.filter((e) => e.vkey === valueKey(c.value));
  if (targets.length === 0) {
    return s.record(c, 'no_effect', null, `retracts ${describe(c.value)}, which is not in force`);
  }
  const needed = Math.max(s.min, maxStanding(targets));
  if (c.standing < needed) {
    return s.record(c, 'overruled', targets[0]!.first, `retraction needs standing ${needed}, has ${c.standing}`);
  }
  for (const e of targets) {
    // A retraction marked as a correction withdraws the value as wrong from the start.
    s.end(e, c.correction ? e.valid_from : c.effective_from, 'retracted', endRef('retraction', c), null);
  }
  s.record(
    c,
    'retracts',
    targets[0]!.first,
    `ends ${targets.map((e) => describe(e.value)).join(', ')} at ${c.correction ? 'its start (withdrawn as wrong)' : c.effective_from}`,
  );
}
