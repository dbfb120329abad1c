import type { Claim } from './claim.js';
import { claimRef } from './claim.js';
import type { Json } from './normalize.js';
import { compareStrings } from './normalize.js';
import type { Policy } from './policy.js';
import { minStanding } from './policy.js';
import type { Decision, DecisionKind, EndRef, EvidenceRef, ValueStatus } from './timeline.js';
import { compareInstants } from './order.js';

/** A value being built by the walk. Mutable inside one fold call only; never escapes it. */
export interface Entry {
  value: Json;
  vkey: string;
  valid_from: string;
  valid_to: string | null;
  status: ValueStatus;
  superseded_by: 'change' | 'correction' | null;
  ended_by: EndRef | null;
  conditions: Set<string>;
  evidence: Claim[];
  standing: number;
  /** Still holding at the end of the walk so far (in force or disputed). */
  open: boolean;
  /**
   * The claim that made the value (a reference for a value carried over from a checkpoint); null
   * only for an overruled value carried over, which no decision of the resumed walk names.
   */
  first: Pick<Claim, 'source' | 'idempotency_key' | 'index'> | null;
  /**
   * A value carried over from a checkpoint (`resumeFold`): the claims it stood on before, as the
   * stored timeline references them, and what of them the decision table reads beyond a reference
   * — each author's highest standing and whether all were dated statements about the past.
   * `evidence` holds only the claims the resumed walk attached.
   */
  prior?: PriorEvidence;
}

export interface PriorEvidence {
  refs: readonly EvidenceRef[];
  authors: ReadonlyMap<string | null, number>;
  historical: boolean;
  /**
   * Set when `refs` are only the last of the value's claims, the first ones being in sealed blocks
   * (`SealedEvidence`): the value's support over all of them. Every claim the walk attaches is of a
   * lineage the value has not seen (`canResume`).
   */
  support?: number;
}

/** The state one walk threads through its claims. */
export class FoldState {
  readonly entries: Entry[] = [];
  /** What the walk decided about each claim so far; the claim is the map's key. */
  readonly decisions = new Map<Claim, Omit<Decision, 'claim'>>();
  readonly min: number;

  constructor(readonly policy: Policy) {
    this.min = minStanding(policy);
  }

  /**
   * A walk resumed from a checkpoint: the values still open, and the overruled values (by value
   * key) a later overruled claim of the same value joins.
   */
  static resumed(policy: Policy, open: readonly Entry[], overruled: ReadonlyMap<string, Entry>): FoldState {
    const s = new FoldState(policy);
    for (const e of open) {
      s.entries.push(e);
      s.openEntries.push(e);
    }
    for (const [vkey, e] of overruled) {
      s.entries.push(e);
      s.overruledByValue.set(vkey, e);
    }
    return s;
  }

  /**
   * Open entries, in the order they were added. Kept as their own list: an entry closes once and
   * never reopens, and scanning every entry per claim made a key restated 10,000 times quadratic.
   */
  private readonly openEntries: Entry[] = [];

  open(): Entry[] {
    return [...this.openEntries];
  }

  record(c: Claim, kind: DecisionKind, target: Pick<Claim, 'source' | 'idempotency_key' | 'index'> | null, reason: string): void {
    this.decisions.set(c, { kind, target: target ? claimRef(target) : null, reason });
  }

  add(c: Claim, value: Json, vkey: string, validFrom: string, status: ValueStatus, open: boolean): Entry {
    const e: Entry = {
      value,
      vkey,
      valid_from: validFrom,
      valid_to: null,
      status,
      superseded_by: null,
      ended_by: null,
      conditions: new Set(c.conditions),
      evidence: [c],
      standing: c.standing,
      open,
      first: c,
    };
    this.entries.push(e);
    if (open) this.openEntries.push(e);
    return e;
  }

  /** The value an overruled claim would have had: one entry per distinct overruled value. */
  overruled(c: Claim, value: Json, vkey: string): Entry {
    const seen = this.overruledByValue.get(vkey);
    if (seen) {
      seen.evidence.push(c);
      seen.standing = Math.max(seen.standing, c.standing);
      return seen;
    }
    const e = this.add(c, value, vkey, c.effective_from, 'overruled', false);
    this.overruledByValue.set(vkey, e);
    return e;
  }

  /** Only this method makes overruled entries, and nothing changes their status afterwards. */
  private readonly overruledByValue = new Map<string, Entry>();

  /**
   * The same value again (duplicate), possibly enriching it. Conditions count only from
   * sufficient standing — at least the policy minimum and the value's own — so an agent cannot
   * attach a proviso to an owner's decision; a correction sets the conditions (`[]` removes them),
   * anything else unites them, so a later duplicate without conditions never drops them.
   */
  attach(e: Entry, c: Claim): void {
    const sufficient = c.standing >= Math.max(this.min, e.standing);
    e.evidence.push(c);
    e.standing = Math.max(e.standing, c.standing);
    const vtext = describe(e.value);
    if (sufficient && c.correction) {
      const before = sorted(e.conditions);
      e.conditions = new Set(c.conditions);
      const after = sorted(e.conditions);
      const changed = before.join('\u0000') !== after.join('\u0000');
      this.record(
        c,
        changed ? 'enriches' : 'duplicate_of',
        e.first,
        changed
          ? `correction restating ${vtext}: conditions set to ${list(after)} (were ${list(before)})`
          : `correction restating ${vtext} as it already stands`,
      );
      return;
    }
    const added = c.conditions.filter((x) => !e.conditions.has(x));
    if (sufficient && added.length > 0) {
      for (const x of added) e.conditions.add(x);
      this.record(c, 'enriches', e.first, `same value ${vtext}; adds conditions ${list(added)}`);
      return;
    }
    const note =
      added.length > 0 ? `; its conditions ${list(added)} are not applied (standing ${c.standing} below ${Math.max(this.min, e.standing)})` : '';
    this.record(c, 'duplicate_of', e.first, `same value ${vtext} again${note}`);
  }

  /** Ends an open entry's interval. */
  end(e: Entry, at: string, status: ValueStatus, by: EndRef, supersededBy: 'change' | 'correction' | null): void {
    if (e.open) this.openEntries.splice(this.openEntries.indexOf(e), 1);
    e.open = false;
    e.valid_to = compareInstants(at, e.valid_from) < 0 ? e.valid_from : at;
    e.status = status;
    e.superseded_by = supersededBy;
    e.ended_by = by;
  }
}

export function endRef(kind: EndRef['kind'], c: Claim): EndRef {
  return { kind, source: c.source, idempotency_key: c.idempotency_key, index: c.index };
}

export function sorted(set: Set<string>): string[] {
  return [...set].sort(compareStrings);
}

export function list(items: readonly string[]): string {
  return items.length === 0 ? '[]' : `[${items.map((i) => JSON.stringify(i)).join(', ')}]`;
}

export function describe(value: Json): string {
  return JSON.stringify(value);
}

/** A claim as a reason names it: role, reference, standing, and the cues that qualified it. */
export function who(c: Claim): string {
  const cues = c.cues.length > 0 ? `; cues: ${c.cues.join(', ')}` : '';
  return `${c.role} ${c.source}/${c.idempotency_key}#${c.index} (standing ${c.standing}${cues})`;
}

export function maxStanding(entries: readonly Entry[]): number {
  return entries.reduce((m, e) => Math.max(m, e.standing), Number.NEGATIVE_INFINITY);
}
