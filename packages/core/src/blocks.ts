import { canonicalJson, sha256 } from './hash.js';
import type { Decision, Timeline, TimelineValue } from './timeline.js';
import { compareInstants } from './order.js';
import { compareStrings, valueKey } from './normalize.js';

/**
 * A timeline's values and decisions are hashed, and may be stored, in blocks of a fixed size
 * counted from the start (docs/scaling.md, "A key restated without end"). The ETag and the state
 * digest are hashes over the blocks' hashes, so they do not depend on which blocks are stored
 * apart from the memory's row: a rebuild hashes every block from scratch and a resumed compile
 * hashes only the blocks its row still holds, and both give the same bytes.
 */
export const VALUE_BLOCK = 64;
export const DECISION_BLOCK = 256;

/** The two hashes of one block: of its items as the timeline spells them, and of their state. */
export interface BlockHash {
  etag: string;
  state: string;
}

/**
 * The blocks of a timeline stored apart from its memory's row, a prefix of its values and one of
 * its decisions (`memories.sealed`). A sealed block is final: no later claim can change an item
 * in it (`sealable`). What a view of the rest needs of them is kept here too: the span of time the
 * sealed values cover, and whether one of them was retracted.
 */
export interface Sealed {
  values: BlockHash[];
  decisions: BlockHash[];
  /** The earliest start and the latest end among the sealed values that ever held; null if none did. */
  held: { from: string; to: string } | null;
  /** The latest boundary among all sealed values. */
  until: string | null;
  retracted: boolean;
  /**
   * The value keys (`valueKey`) of the sealed overruled values, sorted: a later overruled claim of
   * one of them would join it, so a claim of such a value is folded from all of the key's claims.
   * Absent when there are none.
   */
  overruled?: string[];
}

/** A block to store: its items as canonical JSON. */
export interface NewBlock {
  kind: 'values' | 'decisions';
  n: number;
  json: string;
}

export interface TimelineHashes {
  etag: string;
  /** The state digest, computed when called. */
  digest: () => string;
  /** The canonical JSON of what the memory's row keeps: the timeline past its sealed blocks. */
  json: string;
  /** The timeline past its sealed blocks (the row's timeline). */
  head: Timeline;
  sealed: Sealed | null;
  /** Blocks sealed by this call, to store beside the ones `sealed` had. */
  blocks: NewBlock[];
}

/** How many values and decisions a head's sealed blocks hold: where its own items start. */
export function sealedBase(sealed: Sealed | null | undefined): { values: number; decisions: number } {
  return { values: (sealed?.values.length ?? 0) * VALUE_BLOCK, decisions: (sealed?.decisions.length ?? 0) * DECISION_BLOCK };
}

const ref = (r: { source: string; idempotency_key: string; index: number | null }) => [r.source, r.idempotency_key, r.index];

/** A value's state (design §4): no reasons, no ingest data. */
function stateOfValue(v: TimelineValue): unknown {
  return {
    conditions: v.conditions,
    ended_by: v.ended_by ? [v.ended_by.kind, ...ref(v.ended_by)] : null,
    evidence: v.evidence.map(ref),
    from: v.valid_from,
    status: v.status,
    superseded_by: v.superseded_by,
    to: v.valid_to,
    value: v.value,
  };
}

function stateOfDecision(d: Decision): unknown {
  return [ref(d.claim), d.kind, d.target ? ref(d.target) : null];
}

function withoutWorkspace(key: string): unknown {
  const parts = JSON.parse(key) as unknown[];
  return [parts[0], ...parts.slice(2)];
}

interface Block {
  json: string;
  /** Of the items as the timeline spells them (the ETag's). */
  etag: string;
  items: readonly unknown[];
}

function blocksOf<T>(items: readonly T[], size: number, domain: string): Block[] {
  const out: Block[] = [];
  for (let i = 0; i < items.length; i += size) {
    const part = items.slice(i, i + size);
    const json = canonicalJson(part);
    out.push({ json, etag: sha256(`${domain}/etag|${json}`), items: part });
  }
  return out;
}

/** A block's state hash: computed only where a digest or a seal needs it. */
function stateHashOf<T>(b: Block, stateOf: (x: T) => unknown, domain: string): string {
  return sha256(`${domain}/state|${canonicalJson((b.items as readonly T[]).map(stateOf))}`);
}

/**
 * Whether a block of values can no longer change: every value ended (superseded or retracted; an
 * open value may end) or overruled, and every boundary before `before`, so that a view at any later
 * instant sees none of them hold or start. An overruled value gathers the later overruled claims of
 * its value: once sealed, a claim of that value is folded from all of the key's claims instead
 * (`canResume`, `Sealed.overruled`), so a reader overruled early no longer keeps a hot key's whole
 * history in its head.
 */
function finalValues(values: readonly TimelineValue[], before: string): boolean {
  return values.every((v) =>
    v.status === 'overruled'
      ? compareInstants(v.valid_from, before) < 0 && (v.valid_to === null || compareInstants(v.valid_to, before) < 0)
      : (v.status === 'superseded' || v.status === 'retracted') &&
        v.valid_to !== null &&
        compareInstants(v.valid_from, before) < 0 &&
        compareInstants(v.valid_to, before) < 0,
  );
}

/**
 * The ETag, the state digest and the stored form of a timeline whose first blocks are `sealed`
 * (`timeline` holds the items after them; null: it is whole), sealing the blocks that have become
 * final: full, every value ended before `sealBefore`, and no decision about a claim an open or
 * overruled value stands on (a later compile may rewrite those). Null `sealBefore` seals nothing.
 */
export function timelineHashes(timeline: Timeline, sealed: Sealed | null, sealBefore: string | null): TimelineHashes {
  const { values, decisions, ...rest } = timeline;
  const vBlocks = blocksOf(values, VALUE_BLOCK, 'values/1');
  const dBlocks = blocksOf(decisions, DECISION_BLOCK, 'decisions/1');
  // The rest as canonical JSON without its braces: members sort with `decisions` first and
  // `values` last, so the row's text and the ETag's input are both spliced around it.
  const restJson = canonicalJson(rest).slice(1, -1);
  const spliced = (d: string, v: string) => `{"decisions":[${d}],${restJson},"values":[${v}]}`;
  const quoted = (hashes: readonly string[]) => hashes.map((h) => `"${h}"`).join(',');
  const etag = sha256(
    `etag/2|${spliced(quoted([...(sealed?.decisions ?? []).map((h) => h.etag), ...dBlocks.map((b) => b.etag)]), quoted([...(sealed?.values ?? []).map((h) => h.etag), ...vBlocks.map((b) => b.etag)]))}`,
  ).slice(0, 32);
  const vState = (b: Block) => stateHashOf(b, stateOfValue, 'values/1');
  const dState = (b: Block) => stateHashOf(b, stateOfDecision, 'decisions/1');

  let nv = 0;
  let nd = 0;
  if (sealBefore !== null && timeline.policy.cardinality === 'one') {
    while (nv < vBlocks.length && values.length - nv * VALUE_BLOCK >= VALUE_BLOCK && finalValues(values.slice(nv * VALUE_BLOCK, (nv + 1) * VALUE_BLOCK), sealBefore)) nv += 1;
    const full = (n: number) => decisions.length - n * DECISION_BLOCK >= DECISION_BLOCK;
    // Named only where a full block of decisions may be sealed: a compile calls this for every
    // key it writes, and most keys have fewer decisions than one block.
    if (full(0)) {
      const cited = new Set<string>();
      // A resume rewrites the decisions of an open value's claims when the value ends; an
      // overruled value's never (`resumeFold`).
      for (const v of values) if (v.status === 'in_force' || v.status === 'disputed') for (const e of v.evidence) cited.add(JSON.stringify(ref(e)));
      while (nd < dBlocks.length && full(nd) && decisions.slice(nd * DECISION_BLOCK, (nd + 1) * DECISION_BLOCK).every((d) => !cited.has(JSON.stringify(ref(d.claim))))) nd += 1;
    }
  }
  const base = sealedBase(sealed);
  const blocks: NewBlock[] = [
    ...vBlocks.slice(0, nv).map((b, i) => ({ kind: 'values' as const, n: base.values / VALUE_BLOCK + i, json: b.json })),
    ...dBlocks.slice(0, nd).map((b, i) => ({ kind: 'decisions' as const, n: base.decisions / DECISION_BLOCK + i, json: b.json })),
  ];
  // A block sealed here keeps its state hash, so the digest computed below does not redo it.
  const sealedHash = new Map<Block, BlockHash>();
  for (const b of vBlocks.slice(0, nv)) sealedHash.set(b, { etag: b.etag, state: vState(b) });
  for (const b of dBlocks.slice(0, nd)) sealedHash.set(b, { etag: b.etag, state: dState(b) });
  let nextSealed = sealed;
  if (nv > 0 || nd > 0) {
    const newlySealed = values.slice(0, nv * VALUE_BLOCK);
    let held = sealed?.held ?? null;
    let until = sealed?.until ?? null;
    const overruled = new Set(sealed?.overruled ?? []);
    for (const v of newlySealed) {
      if (v.status === 'overruled') {
        // Never held: only its boundaries count, as `viewSettlesAt` counts them.
        for (const b of [v.valid_from, v.valid_to]) if (b !== null && (until === null || compareInstants(until, b) < 0)) until = b;
        overruled.add(valueKey(v.value));
        continue;
      }
      const to = v.valid_to!;
      if (until === null || compareInstants(until, to) < 0) until = to;
      if (compareInstants(v.valid_from, to) < 0 && v.superseded_by !== 'correction') {
        held = held
          ? { from: compareInstants(v.valid_from, held.from) < 0 ? v.valid_from : held.from, to: compareInstants(held.to, to) < 0 ? to : held.to }
          : { from: v.valid_from, to };
      }
    }
    nextSealed = {
      values: [...(sealed?.values ?? []), ...vBlocks.slice(0, nv).map((b) => sealedHash.get(b)!)],
      decisions: [...(sealed?.decisions ?? []), ...dBlocks.slice(0, nd).map((b) => sealedHash.get(b)!)],
      held,
      until,
      retracted: (sealed?.retracted ?? false) || newlySealed.some((v) => v.status === 'retracted'),
      ...(overruled.size > 0 ? { overruled: [...overruled].sort(compareStrings) } : {}),
    };
  }
  const inner = (bs: readonly Block[]) => bs.map((b) => b.json.slice(1, -1)).join(',');
  const json = spliced(inner(dBlocks.slice(nd)), inner(vBlocks.slice(nv)));
  const head = nv > 0 || nd > 0 ? { ...timeline, values: values.slice(nv * VALUE_BLOCK), decisions: decisions.slice(nd * DECISION_BLOCK) } : timeline;
  // The state digest only on demand: a compile whose timeline comes out unchanged, and a reader
  // that wants the ETag, never build the state projection.
  const digest = () => {
    const { scope, owner, subject, predicate, qualifiers } = timeline.fact_key;
    return sha256(
      `state/3|${canonicalJson({
        decisions: [...(sealed?.decisions ?? []).map((h) => h.state), ...dBlocks.map((b) => sealedHash.get(b)?.state ?? dState(b))],
        key: [scope, owner, subject, predicate, qualifiers],
        lineage_events: timeline.lineage_events.map((e) => [e.source, e.idempotency_key, e.at, e.effect]),
        // Keys linked into this memory, without the workspace id; absent when none.
        ...(timeline.linked ? { linked: timeline.linked.map(withoutWorkspace) } : {}),
        policy: timeline.policy,
        revision: timeline.revision,
        status: timeline.status_hint,
        values: [...(sealed?.values ?? []).map((h) => h.state), ...vBlocks.map((b) => sealedHash.get(b)?.state ?? vState(b))],
      })}`,
    );
  };
  return { etag, digest, json, head, sealed: nextSealed, blocks };
}

/**
 * A head as a view at or after `sealed.until` sees the whole timeline: its own values, and in
 * place of the sealed ones, an ended value spanning those that ever held (they hold at no such
 * instant, and that something held before is all a view reads of them) and a corrected one at
 * their latest boundary (which held never, but marks where the view stops changing). For the
 * compile's summaries and change sides, which look at the present.
 */
export function viewableHead(head: Timeline, sealed: Sealed | null | undefined): Timeline {
  if (!sealed || sealed.until === null) return head;
  const stand = (from: string, to: string, superseded_by: 'change' | 'correction'): TimelineValue => ({
    value: null,
    valid_from: from,
    valid_to: to,
    status: 'superseded',
    superseded_by,
    ended_by: null,
    conditions: [],
    standing: 0,
    support: 0,
    evidence: [],
  });
  const stands = [...(sealed.held ? [stand(sealed.held.from, sealed.held.to, 'change')] : []), stand(sealed.until, sealed.until, 'correction')];
  return { ...head, values: [...stands, ...head.values] };
}

/** A whole timeline from its sealed blocks' items (in order) and its head. */
export function assembleTimeline(head: Timeline, values: readonly TimelineValue[][], decisions: readonly Decision[][]): Timeline {
  return { ...head, values: [...values.flat(), ...head.values], decisions: [...decisions.flat(), ...head.decisions] };
}
