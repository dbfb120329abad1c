import { canonicalJson, sha256 } from './hash.js';
import { defaultLineage } from './episode.js';
import type { Decision, EvidenceRef, Timeline, TimelineValue } from './timeline.js';
import { compareInstants } from './order.js';
import { compareStrings, valueKey } from './normalize.js';

/**
 * A timeline's values and decisions are hashed, and may be stored, in blocks of a fixed size
 * counted from the start (docs/scaling.md, "A key restated without end"). The ETag and the state
 * digest are hashes over the blocks' hashes, so they do not depend on which blocks are stored
 * apart from the memory's row: a rebuild hashes every block from scratch and a resumed compile
 * hashes only the blocks its row still holds, and both give the same bytes. A value's evidence,
 * once longer than one block of its own, is hashed the same way (a value restated 10,000 times
 * holds 10,000 references), and its full blocks may be stored apart too.
 */
export const VALUE_BLOCK = 64;
export const DECISION_BLOCK = 256;
export const EVIDENCE_BLOCK = 256;

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
  /**
   * The values whose first blocks of evidence are stored apart, by their place in the whole
   * timeline, sealed values' included (a reader puts their evidence back too); a value of the head
   * holds the evidence past them. Absent when there are none.
   */
  evidence?: SealedEvidence[];
}

/**
 * A value's evidence blocks stored apart (kind `evidence:<at>`). Only a value in force or ended has
 * them, never a disputed or an overruled one: a view of the present shows a disputed value's
 * sources, and an in-force value's count. A resume that could end, or dispute, a value with sealed
 * evidence folds from all claims instead (`canResume`), which cuts its blocks afresh.
 */
export interface SealedEvidence {
  at: number;
  blocks: BlockHash[];
  /** The value's first claim, which names it in reasons (`Entry.first`). */
  first: { source: string; idempotency_key: string; index: number };
  /**
   * Every sealed claim's lineage is its own episode's (`defaultLineage`): a claim of a new episode
   * with such a lineage is then a lineage the value has not seen, and adds one to its support.
   */
  plain: boolean;
}

/** A block to store: its items as canonical JSON. Evidence blocks are `evidence:<value's place>`. */
export interface NewBlock {
  kind: 'values' | 'decisions' | `evidence:${number}`;
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

/** Whether a claim's lineage is its own episode's (`SealedEvidence.plain`). */
export function plainLineage(x: { lineage: string; source: string; idempotency_key: string }): boolean {
  return x.lineage === defaultLineage(x.source, x.idempotency_key);
}

/**
 * A value's state (design §4): no reasons, no ingest data. `evidence`: the state hashes of its
 * evidence blocks, for a value whose evidence is longer than one block.
 */
function stateOfValue(v: TimelineValue, evidence?: readonly string[]): unknown {
  return {
    conditions: v.conditions,
    ended_by: v.ended_by ? [v.ended_by.kind, ...ref(v.ended_by)] : null,
    evidence: evidence ?? v.evidence.map(ref),
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
  /** The items as the row or `memory_blocks` stores them. */
  json: string;
  /** Of the items as the timeline spells them (the ETag's). */
  etag: string;
  /** Of their state; computed only where a digest or a seal needs it. */
  state: () => string;
}

function blocksOf<T>(items: readonly T[], size: number, domain: string, stateOf: (x: T) => unknown): Block[] {
  const out: Block[] = [];
  for (let i = 0; i < items.length; i += size) {
    const part = items.slice(i, i + size);
    const json = canonicalJson(part);
    out.push({ json, etag: sha256(`${domain}/etag|${json}`), state: once(() => sha256(`${domain}/state|${canonicalJson(part.map(stateOf))}`)) });
  }
  return out;
}

function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
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

/** One value of a timeline as the hashes and the stored head see it. */
interface ValueForm {
  /** As stored: its evidence past the blocks sealed (before and by this call). */
  stored: TimelineValue;
  /** As the ETag spells it: the value itself, or with its evidence blocks' hashes for evidence. */
  spelled: TimelineValue | Record<string, unknown>;
  state: () => unknown;
  /** After this call; null when none of its evidence is sealed. */
  sealed: SealedEvidence | null;
  /** Evidence blocks this call seals. */
  blocks: NewBlock[];
}

/**
 * A value's evidence in blocks of `EVIDENCE_BLOCK` from its first claim, once it is longer than
 * one: the value is hashed over its blocks' hashes (those of `prior`, sealed before, then those of
 * `v.evidence`, the rest). A value in force or ended may seal the full blocks of the rest.
 */
function valueForm(v: TimelineValue, at: number, prior: SealedEvidence | undefined, sealing: boolean): ValueForm {
  const priorBlocks = prior?.blocks ?? [];
  if (priorBlocks.length === 0 && v.evidence.length <= EVIDENCE_BLOCK) {
    return { stored: v, spelled: v, state: () => stateOfValue(v), sealed: null, blocks: [] };
  }
  const rest = blocksOf(v.evidence, EVIDENCE_BLOCK, 'evidence/1', ref);
  const eligible = sealing && (v.status === 'in_force' || v.status === 'superseded' || v.status === 'retracted');
  const k = eligible ? Math.floor(v.evidence.length / EVIDENCE_BLOCK) : 0;
  const blocks: NewBlock[] = rest.slice(0, k).map((b, j) => ({ kind: `evidence:${at}`, n: priorBlocks.length + j, json: b.json }));
  const sealedNow = [...priorBlocks, ...rest.slice(0, k).map((b) => ({ etag: b.etag, state: b.state() }))];
  const first = prior?.first ?? (v.evidence[0] ? { source: v.evidence[0].source, idempotency_key: v.evidence[0].idempotency_key, index: v.evidence[0].index } : null);
  const sealed: SealedEvidence | null =
    sealedNow.length > 0 && first
      ? { at, blocks: sealedNow, first, plain: (prior?.plain ?? true) && v.evidence.slice(0, k * EVIDENCE_BLOCK).every(plainLineage) }
      : null;
  return {
    stored: k > 0 ? { ...v, evidence: v.evidence.slice(k * EVIDENCE_BLOCK) } : v,
    spelled: { ...v, evidence: [...priorBlocks.map((h) => h.etag), ...rest.map((b) => b.etag)] },
    state: () => stateOfValue(v, [...priorBlocks.map((h) => h.state), ...rest.map((b) => b.state())]),
    sealed,
    blocks,
  };
}

/**
 * The ETag, the state digest and the stored form of a timeline whose first blocks are `sealed`
 * (`timeline` holds the items after them, its values' evidence past their sealed evidence blocks;
 * null: it is whole), sealing the blocks that have become final: full, every value ended before
 * `sealBefore` or overruled, and no decision about a claim an open value stands on (a later
 * compile may rewrite those) unless that value's evidence is sealed; and the full evidence blocks of
 * a value in force or ended. Null `sealBefore` seals nothing.
 */
export function timelineHashes(timeline: Timeline, sealed: Sealed | null, sealBefore: string | null): TimelineHashes {
  const { values, decisions, ...rest } = timeline;
  const base = sealedBase(sealed);
  const sealing = sealBefore !== null && timeline.policy.cardinality === 'one';
  const priorEvidence = new Map((sealed?.evidence ?? []).map((e) => [e.at, e] as const));
  const forms = values.map((v, i) => valueForm(v, base.values + i, priorEvidence.get(base.values + i), sealing));
  const vBlocks: Block[] = [];
  for (let i = 0; i < forms.length; i += VALUE_BLOCK) {
    const part = forms.slice(i, i + VALUE_BLOCK);
    const json = canonicalJson(part.map((f) => f.stored));
    const plain = part.every((f) => f.spelled === f.stored);
    vBlocks.push({
      json,
      etag: sha256(`values/1/etag|${plain ? json : canonicalJson(part.map((f) => f.spelled))}`),
      state: once(() => sha256(`values/1/state|${canonicalJson(part.map((f) => f.state()))}`)),
    });
  }
  const dBlocks = blocksOf(decisions, DECISION_BLOCK, 'decisions/1', stateOfDecision);
  // The rest as canonical JSON without its braces: members sort with `decisions` first and
  // `values` last, so the row's text and the ETag's input are both spliced around it.
  const restJson = canonicalJson(rest).slice(1, -1);
  const spliced = (d: string, v: string) => `{"decisions":[${d}],${restJson},"values":[${v}]}`;
  const quoted = (hashes: readonly string[]) => hashes.map((h) => `"${h}"`).join(',');
  const etag = sha256(
    `etag/2|${spliced(quoted([...(sealed?.decisions ?? []).map((h) => h.etag), ...dBlocks.map((b) => b.etag)]), quoted([...(sealed?.values ?? []).map((h) => h.etag), ...vBlocks.map((b) => b.etag)]))}`,
  ).slice(0, 32);

  let nv = 0;
  let nd = 0;
  if (sealing) {
    while (nv < vBlocks.length && values.length - nv * VALUE_BLOCK >= VALUE_BLOCK && finalValues(values.slice(nv * VALUE_BLOCK, (nv + 1) * VALUE_BLOCK), sealBefore)) nv += 1;
    const full = (n: number) => decisions.length - n * DECISION_BLOCK >= DECISION_BLOCK;
    // Named only where a full block of decisions may be sealed: a compile calls this for every
    // key it writes, and most keys have fewer decisions than one block.
    if (full(0)) {
      // A resume rewrites the decisions of an open value's claims when the value ends; an
      // overruled value's never, and a value with sealed evidence never ends in a resume.
      const cited = new Set<string>();
      values.forEach((v, i) => {
        if ((v.status === 'in_force' && forms[i]!.sealed === null) || v.status === 'disputed') for (const e of v.evidence) cited.add(JSON.stringify(ref(e)));
      });
      while (nd < dBlocks.length && full(nd) && decisions.slice(nd * DECISION_BLOCK, (nd + 1) * DECISION_BLOCK).every((d) => !cited.has(JSON.stringify(ref(d.claim))))) nd += 1;
    }
  }
  const blocks: NewBlock[] = [
    ...vBlocks.slice(0, nv).map((b, i) => ({ kind: 'values' as const, n: base.values / VALUE_BLOCK + i, json: b.json })),
    ...dBlocks.slice(0, nd).map((b, i) => ({ kind: 'decisions' as const, n: base.decisions / DECISION_BLOCK + i, json: b.json })),
    ...forms.flatMap((f) => f.blocks),
  ];
  // Every value with evidence stored apart, those of sealed values too: a reader puts it back. An
  // entry changes only when a block of its evidence is sealed.
  const evidence = [...(sealed?.evidence ?? []).filter((e) => e.at < base.values), ...forms.flatMap((f) => (f.sealed ? [f.sealed] : []))];
  let nextSealed = sealed;
  if (nv > 0 || nd > 0 || forms.some((f) => f.blocks.length > 0)) {
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
      values: [...(sealed?.values ?? []), ...vBlocks.slice(0, nv).map((b) => ({ etag: b.etag, state: b.state() }))],
      decisions: [...(sealed?.decisions ?? []), ...dBlocks.slice(0, nd).map((b) => ({ etag: b.etag, state: b.state() }))],
      held,
      until,
      retracted: (sealed?.retracted ?? false) || newlySealed.some((v) => v.status === 'retracted'),
      ...(overruled.size > 0 ? { overruled: [...overruled].sort(compareStrings) } : {}),
      ...(evidence.length > 0 ? { evidence } : {}),
    };
  }
  const inner = (bs: readonly Block[]) => bs.map((b) => b.json.slice(1, -1)).join(',');
  const json = spliced(inner(dBlocks.slice(nd)), inner(vBlocks.slice(nv)));
  const trimmed = forms.some((f, i) => f.stored !== values[i]);
  const head =
    nv > 0 || nd > 0 || trimmed
      ? { ...timeline, values: forms.slice(nv * VALUE_BLOCK).map((f) => f.stored), decisions: decisions.slice(nd * DECISION_BLOCK) }
      : timeline;
  // The state digest only on demand: a compile whose timeline comes out unchanged, and a reader
  // that wants the ETag, never build the state projection.
  const digest = () => {
    const { scope, owner, subject, predicate, qualifiers } = timeline.fact_key;
    return sha256(
      `state/3|${canonicalJson({
        decisions: [...(sealed?.decisions ?? []).map((h) => h.state), ...dBlocks.map((b) => b.state())],
        key: [scope, owner, subject, predicate, qualifiers],
        lineage_events: timeline.lineage_events.map((e) => [e.source, e.idempotency_key, e.at, e.effect]),
        // Keys linked into this memory, without the workspace id; absent when none.
        ...(timeline.linked ? { linked: timeline.linked.map(withoutWorkspace) } : {}),
        policy: timeline.policy,
        revision: timeline.revision,
        status: timeline.status_hint,
        values: [...(sealed?.values ?? []).map((h) => h.state), ...vBlocks.map((b) => b.state())],
      })}`,
    );
  };
  return { etag, digest, json, head, sealed: nextSealed, blocks };
}

/** How many pieces of evidence each value with sealed evidence has stored apart, by its place. */
function sealedEvidenceCounts(sealed: Sealed): Map<number, number> {
  return new Map((sealed.evidence ?? []).map((e) => [e.at, e.blocks.length * EVIDENCE_BLOCK]));
}

/**
 * The head a whole timeline leaves past `sealed`: its values and decisions after the sealed
 * blocks, and each value's evidence after its own sealed blocks (verify hashes it with them).
 */
export function headOf(whole: Timeline, sealed: Sealed | null | undefined): Timeline {
  if (!sealed) return whole;
  const base = sealedBase(sealed);
  const evidence = sealedEvidenceCounts(sealed);
  return {
    ...whole,
    values: whole.values.slice(base.values).map((v, i) => {
      const n = evidence.get(base.values + i);
      return n ? { ...v, evidence: v.evidence.slice(n) } : v;
    }),
    decisions: whole.decisions.slice(base.decisions),
  };
}

/** Stands in for a sealed piece of evidence where only the count is read (`viewableHead`). */
const SEALED_EVIDENCE: EvidenceRef = Object.freeze({
  source: '',
  idempotency_key: '',
  index: 0,
  lineage: '',
  source_ref: null,
  standing: 0,
  role: 'reader',
  occurred_at: '',
  effective_from: '',
  text: '',
  correction: false,
});

/**
 * A head as a view at or after `sealed.until` sees the whole timeline: its own values, and in
 * place of the sealed ones, an ended value spanning those that ever held (they hold at no such
 * instant, and that something held before is all a view reads of them) and a corrected one at
 * their latest boundary (which held never, but marks where the view stops changing). A value
 * with sealed evidence holds as many pieces as it has, the sealed ones as stand-ins: a view of the
 * present counts an in-force value's evidence, and lists only a disputed one's, which has none
 * sealed. For the compile's summaries and change sides, which look at the present.
 */
export function viewableHead(head: Timeline, sealed: Sealed | null | undefined): Timeline {
  if (!sealed) return head;
  const base = sealedBase(sealed).values;
  const counted = sealedEvidenceCounts(sealed);
  const values =
    counted.size === 0
      ? head.values
      : head.values.map((v, i) => {
          const n = counted.get(base + i);
          return n ? { ...v, evidence: [...new Array<EvidenceRef>(n).fill(SEALED_EVIDENCE), ...v.evidence] } : v;
        });
  if (sealed.until === null) return values === head.values ? head : { ...head, values };
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
  return { ...head, values: [...stands, ...values] };
}

/**
 * A whole timeline from its sealed blocks' items (in order), its values' sealed evidence (by a
 * value's place in the whole timeline, its blocks' items in order) and its head.
 */
export function assembleTimeline(
  head: Timeline,
  values: readonly TimelineValue[][],
  decisions: readonly Decision[][],
  evidence: ReadonlyMap<number, readonly EvidenceRef[][]> = new Map(),
): Timeline {
  const all = [...values.flat(), ...head.values].map((v, at) => {
    const sealedEvidence = evidence.get(at);
    return sealedEvidence ? { ...v, evidence: [...sealedEvidence.flat(), ...v.evidence] } : v;
  });
  return { ...head, values: all, decisions: [...decisions.flat(), ...head.decisions] };
}
