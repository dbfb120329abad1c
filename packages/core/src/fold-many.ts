import type { Claim } from './claim.js';
import type { Json } from './normalize.js';
import { valueKey } from './normalize.js';
import { compareInstants } from './order.js';
import type { Entry, FoldState } from './fold-state.js';
import { describe, endRef, maxStanding, who } from './fold-state.js';

/**
 * One claim on a cardinality-many key: each member has its own interval. `assert` adds a member,
 * `retract` ends one (or all, without a value), `replace` states the complete set — members it
 * leaves out end at its time (retroactively for a correction). Members never dispute each other.
 */
export function foldMany(s: FoldState, c: Claim): void {
  if (c.op === 'replace') return replace(s, c);
  const open = s.open();
  if (c.op === 'retract') {
    const targets = c.value === null ? open : open.filter((e) => e.vkey === valueKey(c.value));
    if (targets.length === 0) return s.record(c, 'no_effect', null, `retracts ${describe(c.value)}, which is not a member`);
    const needed = Math.max(s.min, maxStanding(targets));
    if (c.standing < needed) {
      return s.record(c, 'overruled', targets[0]!.first, `retraction needs standing ${needed}, has ${c.standing}`);
    }
    for (const e of targets) s.end(e, c.correction ? e.valid_from : c.effective_from, 'retracted', endRef('retraction', c), null);
    return s.record(c, 'retracts', targets[0]!.first, `removes ${targets.map((e) => describe(e.value)).join(', ')}`);
  }
  const vkey = valueKey(c.value);
  const match = open.find((e) => e.vkey === vkey);
  if (match) return s.attach(match, c);
  if (c.standing < s.min) {
    s.overruled(c, c.value, vkey);
    return s.record(c, 'overruled', null, `standing ${c.standing} is below the policy minimum ${s.min}`);
  }
  s.add(c, c.value, vkey, c.effective_from, 'in_force', true);
  s.record(c, 'supports', null, `adds member ${describe(c.value)} from ${c.effective_from}`);
}

function members(value: Json): Array<[string, Json]> {
  const items = Array.isArray(value) ? value : value === null ? [] : [value];
  const byKey = new Map<string, Json>();
  for (const m of items) byKey.set(valueKey(m), m);
  return [...byKey.entries()];
}

function replace(s: FoldState, c: Claim): void {
  const wanted = members(c.value);
  const wantedKeys = new Set(wanted.map(([k]) => k));
  const open = s.open();
  const removed = open.filter((e) => !wantedKeys.has(e.vkey));
  const needed = Math.max(s.min, maxStanding(removed));
  if (c.standing < needed) {
    for (const [k, m] of wanted) if (!open.some((e) => e.vkey === k)) s.overruled(c, m, k);
    return s.record(c, 'overruled', removed[0]?.first ?? null, `${who(c)} replaces the set but needs standing ${needed}`);
  }
  // A replacement is a statement of the whole set, so it is a change by nature (whatever the
  // policy mode); a correction makes it retroactive from the earliest member it removes.
  let start = c.effective_from;
  for (const e of removed) {
    if (c.correction) {
      if (compareInstants(e.valid_from, start) < 0) start = e.valid_from;
      s.end(e, c.effective_from, 'superseded', endRef('correction', c), 'correction');
    } else {
      s.end(e, c.effective_from, 'superseded', endRef('change', c), 'change');
    }
  }
  const added: Entry[] = [];
  for (const [k, m] of wanted) {
    const kept = open.find((e) => e.vkey === k);
    if (kept) s.attach(kept, c);
    else added.push(s.add(c, m, k, start, 'in_force', true));
  }
  const parts = [
    removed.length ? `removes ${removed.map((e) => describe(e.value)).join(', ')}` : '',
    added.length ? `adds ${added.map((e) => describe(e.value)).join(', ')}` : '',
  ].filter(Boolean);
  if (parts.length === 0) {
    return s.record(c, 'duplicate_of', open[0]?.first ?? null, 'states the set as it already stands');
  }
  const kind = c.correction ? (c.settles.length > 0 ? 'settles' : 'corrects') : 'changes';
  s.record(c, kind, removed[0]?.first ?? null, `replaces the set: ${parts.join('; ')}`);
}
