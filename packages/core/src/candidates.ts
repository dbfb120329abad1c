import { compareStrings } from './normalize.js';
import type { FactKey } from './fact-key.js';
import { NOTE_PREDICATE } from './extract.js';
import type { Claim } from './claim.js';
import { CUES, PREVIOUS_VALUE_CUE } from './cues.js';
import { canonicalWord, COMMON, DETAIL_AXES, dropE, FILLER, LIGHT, QUALIFIER_AXIS, sameAxis } from './candidate-words.js';
import { predicateWords } from './candidate-reading.js';

export { predicateWords } from './candidate-reading.js';

/**
 * Candidates (design §1, law 3): two memories of one subject and scope whose predicates are near
 * enough to be one fact worded twice. A candidate is only ever shown — "may be the same fact as"
 * — and never merges, changes or disputes anything; only a link (a claim in the log) does.
 *
 * Everything here is a pure function of the two fact keys (and, for a note, its words), so the
 * candidates of a subject are a set function of its memories: any order, any compile history,
 * the same pairs. They are kept out of timelines, so no `state_hash` depends on them.
 */

/** One memory as the candidate search sees it. */
export interface CandidateInput {
  memory_id: string;
  fact_key: FactKey;
  /** A note's words (its value); a note's key holds only their fingerprint. */
  note_text?: string | null;
  /**
   * A claim of the memory was told as a change or a correction by a cue the extractor took out of
   * its wording ("Going forward, demos happen {weekday} afternoons"): see `toldAsChange`.
   */
  told_as_change?: boolean;
  /**
   * The documents (lineages) claims of the memory came from: see `documentsOf`. Two memories one
   * document states are never a pair.
   */
  document_lineages?: readonly string[];
}

export interface CandidatePair {
  /** The smaller memory id. */
  a: string;
  b: string;
  /** 0..1, two decimals. */
  score: number;
  reason: string;
  /** One side negates what the other states: a possible contradiction even with equal values. */
  opposite?: true;
  /** Near only by the looser rules of a statement told as a change (`LOOSE_LIMIT`). */
  loose?: true;
}

/** What a memory row keeps of each of its candidates. */
export interface CandidateRef {
  memory_id: string;
  score: number;
  reason: string;
  opposite?: true;
  /** A link below the standing links need, naming this pair: a proposal, not applied. */
  proposed?: { same: boolean; source: string; idempotency_key: string; reason: string };
}

/** The score from which two predicates are shown as candidates. */
export const CANDIDATE_THRESHOLD = 0.5;

/** A pair sharing a content word with no qualifier swap scores at least this. */
const SHARED_FLOOR = 0.5;

export interface PredicateShape {
  /** Slot placeholders in order of kind: `{weekday}`, `{version}` … sorted. */
  slots: string;
  /** Content words, stemmed and mapped to one synonym each. */
  words: ReadonlySet<string>;
  negated: boolean;
  /** Told as a change ("moved to", "now", "instead"): a restatement of an earlier fact. */
  change: boolean;
  /** Told as a plan ("will be upgraded to"): a fact apart from what is. */
  plan: boolean;
  /** Told as a change of a schedule ("the refit stretched to {quantity}"), which may be a plan's. */
  slips: boolean;
  /** Words of the subject's name: every memory compared is about it (`subjectWords`). */
  named: ReadonlySet<string>;
  /** Content words said as a past verb done again ("relicensed"): see `redoneAgainst`. */
  again: ReadonlySet<string>;
  /** Trigrams of the content words, computed once per memory. */
  grams: ReadonlySet<string>;
  /**
   * The fact's words in the order said: a content word as `words` holds it, any other as written,
   * a value as its slot. Two statements are lined up on it (`frameSwap`).
   */
  seq: readonly string[];
  /** Each content word as the statement first said it (`predicateWords`), for reasons. */
  said: ReadonlyMap<string, string>;
  /** Where a statement goes "from" and "to" ("from the mainland to the isle"), when it says both. */
  route: readonly [string, string] | null;
  /** Qualifiers that belong to the identity (a note's fingerprint does not). */
  qualifiers: string;
  scope: string;
  /** `CandidateInput.document_lineages`; null for none. */
  documents: ReadonlySet<string> | null;
}

// Cues of class change ("from now on", "effective Monday") or correction ("Correction:", "actually,")
// are taken out of a statement's wording before its predicate is made.
const CHANGE_CUES = new Set([...CUES, PREVIOUS_VALUE_CUE].filter((c) => c.class === 'change' || c.class === 'correction').map((c) => c.name));

/**
 * Whether any of a memory's claims was told as a change or a correction by a cue: such a
 * statement restates an earlier fact with a new value, and is compared as one (`scoreShapes`).
 * A function of the set of claims, so a rebuild and any order of compiles agree.
 */
export function toldAsChange(claims: Iterable<Pick<Claim, 'cues'>>): boolean {
  for (const c of claims) if (c.cues.some((name) => CHANGE_CUES.has(name))) return true;
  return false;
}

/** At most this many documents are kept per memory: the first, in code-unit order. */
export const DOCUMENTS_KEPT = 64;

/**
 * The documents (lineages) claims came from, in order, at most `DOCUMENTS_KEPT`. A document states
 * each of its facts under its own key — a key path (`devDependencies.jest`,
 * `devDependencies.@types/jest`), a heading's item — so two keys one document states are two facts
 * by how it is written, not two wordings of one: over a repository's package files they were
 * thousands of pairs ("type" / "types"). Keys only other documents, or messages, state still pair.
 * `prior` is what the claims folded before gave (a resumed fold holds only the new ones): the
 * first `DOCUMENTS_KEPT` of a union are those of the first of each part, so a resume and a
 * rebuild agree.
 */
export function documentsOf(claims: Iterable<Pick<Claim, 'origin' | 'lineage'>>, prior: readonly string[] = []): string[] {
  const found = new Set(prior);
  for (const c of claims) if (c.origin === 'document') found.add(c.lineage);
  const sortedFound = [...found].sort(compareStrings);
  if (sortedFound.length > DOCUMENTS_KEPT) sortedFound.length = DOCUMENTS_KEPT;
  return sortedFound;
}

/** `subjects` caches the words of each subject's name over one search. */
export function shapeOf(input: CandidateInput, subjects: Map<string, ReadonlySet<string>> = new Map()): PredicateShape {
  const fk = input.fact_key;
  const isNote = fk.predicate === NOTE_PREDICATE;
  const worded = predicateWords(isNote ? (input.note_text ?? '') : fk.predicate);
  const { words, slots, negated, again, seq, route, slips, said } = worded;
  // The cue that told it as a change is no longer in the predicate's words, but it was said; with
  // the future tense alone it says when the new rule starts ("will send at {time} from now on").
  const told = input.told_as_change === true && (!worded.plan || worded.future);
  const plan = worded.plan && !told;
  const change = worded.change || told;
  const qualifiers = Object.entries(fk.qualifiers)
    .filter(([k]) => !(isNote && k === 'fingerprint'))
    .map(([k, v]) => `${k}=${v}`)
    .sort(compareStrings)
    .join('\u0000');
  let named = subjects.get(fk.subject);
  if (!named) subjects.set(fk.subject, (named = subjectWords(fk.subject)));
  const own = agentsOf(words, named);
  return { slots: isNote ? 'note' : slots.map((s) => `{${s}}`).join(' '), words: own, negated, change, plan, slips, named, again, grams: trigramsOf(own), seq, route, said, qualifiers, scope: `${fk.scope}\u0000${fk.owner ?? ''}`, documents: input.document_lineages && input.document_lineages.length > 0 ? new Set(input.document_lineages) : null };
}

/**
 * "The ingester" of `service:wire-ingest`, "the uploader" of `service:photo-upload`: the noun of
 * the one who does what the subject's name says is the subject, read as that word of its name.
 */
function agentsOf(words: Set<string>, named: ReadonlySet<string>): Set<string> {
  let out: Set<string> | null = null;
  for (const w of words) {
    if (named.has(w) || !/(?:er|or)$/.test(w)) continue;
    const base = [dropE(w.slice(0, -2)), dropE(w.slice(0, -1))].find((b) => b.length >= 3 && named.has(b));
    if (!base) continue;
    out ??= new Set(words);
    out.delete(w);
    out.add(base);
  }
  return out ?? words;
}

/** The words of a subject's name: `user:amir` → amir, `service:orders-db` → order, database. */
export function subjectWords(subject: string): ReadonlySet<string> {
  const name = subject.slice(subject.indexOf(':') + 1).normalize('NFKC').toLowerCase();
  const out = new Set<string>();
  for (const w of name.split(/[^\p{L}\p{N}]+/u)) if (w.length >= 3 && !/^\d+$/.test(w)) out.add(canonicalWord(w));
  return out;
}

function trigramsOf(words: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const w of words) {
    const padded = `  ${w} `;
    for (let i = 0; i + 3 <= padded.length; i += 1) out.add(padded.slice(i, i + 3));
  }
  return out;
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const x of a) if (b.has(x)) n += 1;
  return n;
}

/**
 * The score of two predicate shapes, or null when they can never be one fact: another scope or
 * owner, other qualifiers, other slot kinds, a plan against what is (unless the value is a date),
 * or no content word in common. One negated and the other not ("Deploys are allowed on {weekday}" / "We no longer allow
 * deploys on {weekday}") is `opposite`: the same fact whose truth may have changed.
 *
 * The score is the mean of word Dice and trigram Dice over the content words. A word that only
 * one side has is a detail ("now", "the nightly"); a word on each side that the other lacks is a
 * substitution ("staging" for "production"), the shape of two different facts. A statement told
 * as a change is held to less: it restates a fact in the words of the change.
 */
/** The words of `x` that `y` lacks, leaving out words naming the subject. */
function onlyIn(x: PredicateShape, y: PredicateShape): string[] {
  const out: string[] = [];
  for (const w of x.words) if (!y.words.has(w) && !x.named.has(w) && !y.named.has(w)) out.push(w);
  return out;
}

/**
 * Of the words of `x` that `y` lacks (words naming the subject left out): how many are not a
 * linking verb ("runs", "is", "uses": how it is said, not a substitution — "The ranker runs model
 * {version}" / "Ranker model deployed: {version}"), and the axes of those that name which of
 * parallel facts it is (`QUALIFIER_AXIS`).
 */
function onlyCounts(x: PredicateShape, y: PredicateShape): { heavy: number; axes: ReadonlySet<string> } {
  let heavy = 0;
  // Scored for every pair a subject's word index proposes, most with no qualifier: the set is
  // made only when there is one.
  let axes: Set<string> | null = null;
  for (const w of x.words) {
    if (y.words.has(w) || x.named.has(w) || y.named.has(w)) continue;
    if (!LIGHT.has(w)) heavy += 1;
    const on = QUALIFIER_AXIS.get(w);
    if (on) for (const axis of on) (axes ??= new Set()).add(axis);
  }
  return { heavy, axes: axes ?? NO_AXES };
}

const NO_AXES: ReadonlySet<string> = new Set();

/**
 * Whether the qualifiers one side says and the other does not (`onlyCounts`) leave the two near
 * enough for the strict rules: none at all, or — for the only two facts of a kind (`alone`) —
 * only qualifiers on axes that narrow how one fact is said (`DETAIL_AXES`: "the weekly sync",
 * "the new laptop", "the production model", "a target of"). Among many facts of a kind any one
 * of them may be what tells two apart ("the API" / "the EU API").
 */
function unqualified(axes: ReadonlySet<string>, alone: boolean): boolean {
  if (axes.size === 0) return true;
  if (!alone) return false;
  for (const axis of axes) if (!DETAIL_AXES.has(axis)) return false;
  return true;
}

/**
 * A qualifier on each side, alternatives on one axis ("staging" / "production", "first" / "last"):
 * two parallel facts. Qualifiers on two axes ("a first reply" / "customers hear back") each narrow
 * how one fact is said.
 */
function qualifiedApart(ox: { axes: ReadonlySet<string> }, oy: { axes: ReadonlySet<string> }): boolean {
  return sameAxis(ox.axes, oy.axes);
}

/**
 * `x` with each past verb done again that is another word of `y` ("relicensed" against
 * "licensed", "rebranded" against "branded") read as that word, told as a change; `x` itself when it
 * has none. Only a past verb: "search reindex" is a thing, not an index done again. A pair
 * function, and `predicateWords` keeps only verbs of five letters or more between "re" and "ed",
 * so "reported" is never "ported" done again, nor "rehosted" "hosted".
 */
function redoneAgainst(x: PredicateShape, y: PredicateShape): PredicateShape {
  if (x.again.size === 0) return x;
  let words: Set<string> | null = null;
  for (const w of x.again) {
    const base = w.slice(2);
    if (!y.words.has(base) || x.words.has(base) || y.words.has(w)) continue;
    words ??= new Set(x.words);
    words.delete(w);
    words.add(base);
  }
  return words ? { ...x, words, grams: trigramsOf(words), change: true } : x;
}

/**
 * `alone`: the two are the only facts of their kind in the subject (a block of two). Words swapped
 * on each side then count as two facts only when they stand in one place (`swappedInPlace`), and a
 * qualifier on one side only keeps them apart only on an axis that names a fact apart
 * (`unqualified`); among many facts of a kind, a word moved may be the one that tells them apart
 * ("the platform deploy runs on {weekday}" / "payments schedules the deploy for {weekday}"), and
 * any swap or one-sided qualifier does.
 */
export function scoreShapes(a: PredicateShape, b: PredicateShape, alone = false): { score: number; reason: string; opposite?: true; loose?: true } | null {
  if (a.scope !== b.scope || a.qualifiers !== b.qualifiers || a.slots !== b.slots) return null;
  const x = redoneAgainst(a, b);
  const y = redoneAgainst(b, a);
  if (x.words.size === 0 || y.words.size === 0) return null;
  if (planApart(x, y)) return null;
  const shared = overlap(x.words, y.words);
  if (shared === 0) return null;
  // Every memory compared is about one subject, so a word naming it ("Amir", "backend") that one
  // side says and the other leaves implicit is no difference between them.
  // Counted before anything is built: most pairs a subject's word index proposes fail here, and
  // a subject of thousands of keys sharing a word ("setting 1" … "setting 2000") proposes millions.
  const ox = onlyCounts(x, y);
  const oy = onlyCounts(y, x);
  // Sharing only words every statement uses ("runs", "is kept") is two facts that happen to
  // share a verb. `sharedFacts` leaves out the words of the subject's name as well.
  let sharedFacts = 0;
  for (const w of x.words) {
    if (!y.words.has(w) || COMMON.has(w)) continue;
    if (!x.named.has(w) && !y.named.has(w)) sharedFacts += 1;
  }
  const change = x.change || y.change;
  // A word naming which of parallel facts it is ("EU", "staging", "least") on one side only.
  // A change may drop or add one ("Outbound mail goes through {host}" / "We switched the mail
  // relay to {host}"); a qualifier on each side is still two facts ("staging" / "production").
  if (qualifiedApart(ox, oy)) return null;
  // Two notes said in one frame but for their last words ("… is owned by the Platform team" /
  // "… by the Checkout team", "… uses MySQL" / "… uses PostgreSQL"): a note has no slot, so what
  // differs at its end is its value — one fact told two ways, a possible contradiction, not two
  // facts told apart by a part swapped.
  const noteValues = x.slots === 'note' && swappedAtEnd(x, y);
  if (!noteValues && (frameSwap(x, y) || reversed(x, y))) return null;
  // strictlyNear may ask in each of its clauses; the alignment is made once.
  let inPlace: boolean | undefined;
  const strict =
    noteValues ||
    (unqualified(ox.axes, alone) &&
      unqualified(oy.axes, alone) &&
      strictlyNear(ox.heavy, oy.heavy, shared, sharedFacts, Math.min(x.words.size, y.words.size), alone ? () => (inPlace ??= swappedInPlace(x, y)) : anySwap));
  // A statement told as a change ("Raised the orders db pool to {quantity}") restates an earlier
  // fact in the words of the change, which rarely repeat the words of the fact; a content word
  // of the fact in common and no qualifier on one side only is enough to show the two — but only as a
  // `loose` pair, which `findCandidates` keeps for a change that has no nearer fact to restate —
  // never for two parallel changes.
  // A word of the subject's name ("zed" of person:zed, "payments" of service:payments) shows
  // nothing: every statement of the subject may say it, so a change would pair with each of them,
  // and past LOOSE_LIMIT lose the one fact it restates.
  if (!strict && !(change && sharedFacts > 0 && !parallelChanges(x, y, ox, oy))) return null;
  const onlyX = onlyIn(x, y);
  const onlyY = onlyIn(y, x);
  const wordDice = (2 * shared) / (x.words.size + y.words.size);
  const gramDice = (2 * overlap(x.grams, y.grams)) / (x.grams.size + y.grams.size);
  const score = Math.round(Math.max((wordDice + gramDice) / 2, SHARED_FLOOR) * 100) / 100;
  // Words as they were said, not as they are compared ("runbook", not its synonym's head "doc";
  // "alice", not the stem "alic"): a reason is read by people.
  const shown = (w: string) => x.said.get(w) ?? y.said.get(w) ?? w;
  const sharedWords = [...x.words].filter((w) => y.words.has(w)).map(shown).sort(compareStrings);
  const onlyXShown = onlyX.map(shown).sort(compareStrings);
  const onlyYShown = onlyY.map(shown).sort(compareStrings);
  const parts = [x.slots ? `same slots ${x.slots}` : 'no slots', `shared: ${sharedWords.join(', ')}`];
  // ASCII on purpose: one character outside Latin-1 makes V8 hold a whole page of recall as a
  // two-byte string, which doubles what serializing and sending it costs.
  if (onlyX.length + onlyY.length > 0) parts.push(`differs: ${onlyXShown.join(' ') || '(none)'} / ${onlyYShown.join(' ') || '(none)'}`);
  if (change) parts.push('told as a change');
  if (x.negated !== y.negated) parts.push('one side negated');
  return { score, reason: parts.join('; '), ...(x.negated !== y.negated ? { opposite: true as const } : {}), ...(strict ? {} : { loose: true as const }) };
}

/**
 * One side a plan and the other not: two facts. "Redis will be upgraded to {version}" does not say
 * which version runs now. But a date is when something happens ("will be switched off on {date}"
 * is what "the shutdown slipped to {date}" restates), and a change of a schedule moves what was
 * planned ("the refit is planned for {quantity} in dock" / "the refit stretched to {quantity}").
 */
function planApart(x: PredicateShape, y: PredicateShape): boolean {
  return x.plan !== y.plan && !x.slots.includes('{date}') && !(x.plan ? y : x).slips;
}

/** How many words two sequences share from their start, and then from their end. */
function commonEnds(a: readonly string[], b: readonly string[]): { head: number; tail: number; shorter: number } {
  const shorter = Math.min(a.length, b.length);
  let head = 0;
  while (head < shorter && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < shorter - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return { head, tail, shorter };
}

/**
 * Two statements the same for at least two words from their start and at most one at their end,
 * differing in between on each side by a word of the fact (not one merely moved, nor a word of the
 * subject's name): the frame of one statement with its last part told two ways. The frame holds at
 * least as many words of the fact, besides the subject's name, as either stretch: "The orders
 * on-call is Alice" and "The orders dashboard lives in Grafana" share only "the orders", which
 * every note of `service:orders` may start with, and in `team:x` one word against three — two
 * facts after a shared opening, not one told two ways.
 */
function swappedAtEnd(x: PredicateShape, y: PredicateShape): boolean {
  const a = x.seq;
  const b = y.seq;
  const { head, tail, shorter } = commonEnds(a, b);
  if (head < 2 || tail > 1 || head + tail >= shorter) return false;
  let frame = 0;
  for (let i = 0; i < a.length; i += 1) {
    if (i === head) i = a.length - tail;
    const w = a[i];
    if (w !== undefined && x.words.has(w) && !x.named.has(w)) frame += 1;
  }
  // How many words of the fact each side says in its own stretch: none is no value told, and more
  // than the frame holds is another statement after a shared opening, not its last words.
  const own = (from: PredicateShape, to: PredicateShape, seq: readonly string[]) => {
    let n = 0;
    for (let i = head; i < seq.length - tail; i += 1) {
      const w = seq[i]!;
      if (from.words.has(w) && !to.words.has(w) && !from.named.has(w) && !LIGHT.has(w)) n += 1;
    }
    return n;
  };
  const ox = own(x, y, a);
  const oy = own(y, x, b);
  return ox > 0 && oy > 0 && Math.max(ox, oy) <= frame;
}

/** One statement goes from where the other goes to, and back: two ways, two facts (the last sailing each way). */
function reversed(x: PredicateShape, y: PredicateShape): boolean {
  return x.route !== null && y.route !== null && x.route[0] !== x.route[1] && x.route[0] === y.route[1] && x.route[1] === y.route[0];
}

// Past this many words a stretch (or a frame) is looked up in a set rather than scanned.
const SCAN_LIMIT = 16;

/**
 * Two statements said in one frame with one part of it swapped for another ("Brightbite billing
 * gives a {percent} discount to family plan members" / "… to patients over sixty-five", "HR
 * reimburses up to {money} a year for professional training" / "… for home office equipment",
 * "Open enrollment starts on {date}" / "… ends on {date}"): parallel facts, told apart by the part
 * swapped, however many words it has — `strictlyNear` says so of one or two words swapped anywhere.
 * Lined up on their sequences, the two differ in one stretch only, each stretch holds a word of
 * the fact the other statement lacks everywhere (a word merely moved is a rewording, a linking verb
 * or a word of the subject's name is no part swapped), and what they share around it holds a word
 * of the fact and is at least half of the shorter statement. A rewording rarely keeps the frame; a
 * change told in one ("The deploy now runs on {weekday}") swaps no word of the fact.
 */
function frameSwap(x: PredicateShape, y: PredicateShape): boolean {
  const a = x.seq;
  const b = y.seq;
  const { head, tail, shorter } = commonEnds(a, b);
  // Scored for every pair that shares a word, so nothing is built before it can matter: a
  // statement whose stretch is empty swaps nothing (the same words, or the other's with more).
  if (head + tail >= shorter || 2 * (head + tail) < shorter) return false;
  // Looked up once per word of a stretch: scanned while short (most statements), a set when long,
  // so two long statements cost in proportion to their length, not to its square.
  const lookup = (seq: readonly string[], from: number, to: number, also?: readonly [number, number]): ((w: string) => boolean) => {
    const length = to - from + (also ? also[1] - also[0] : 0);
    if (length <= SCAN_LIMIT) {
      return (w) => {
        for (let i = from; i < to; i += 1) if (seq[i] === w) return true;
        if (also) for (let i = also[0]; i < also[1]; i += 1) if (seq[i] === w) return true;
        return false;
      };
    }
    const set = new Set(seq.slice(from, to));
    if (also) for (let i = also[0]; i < also[1]; i += 1) set.add(seq[i]!);
    return (w) => set.has(w);
  };
  const inFrame = lookup(a, 0, head, [a.length - tail, a.length]);
  // A word of one stretch that the other statement says outside the frame was moved, not swapped.
  // A word of the subject's name counts as swapped only against a word of the fact in its place on
  // the other side ("the streak freeze flag" / "the streak repair flag" of flag:streak-freeze), one
  // or two words each: left out against nothing, against another word of the name, or in a longer
  // rewording, it is no part swapped.
  const swapped = (from: PredicateShape, to: PredicateShape, own: readonly string[], other: readonly string[]) => {
    const inOther = lookup(other, head, other.length - tail);
    let n = 0;
    let named = 0;
    for (let i = head; i < own.length - tail; i += 1) {
      const w = own[i]!;
      if (!from.words.has(w) || LIGHT.has(w)) continue;
      if (from.named.has(w) || to.named.has(w)) {
        named += 1;
        continue;
      }
      if (inOther(w) || (to.words.has(w) && !inFrame(w))) return null;
      n += 1;
    }
    return { n, named };
  };
  const sx = swapped(x, y, a, b);
  const sy = sx && swapped(y, x, b, a);
  if (!sx || !sy || sx.n + sy.n === 0 || sx.n + sx.named === 0 || sy.n + sy.named === 0) return false;
  if ((sx.n === 0 || sy.n === 0) && Math.max(a.length, b.length) - head - tail > 2) return false;
  for (let i = 0; i < a.length; i += 1) {
    if (i === head) i = a.length - tail;
    const w = a[i];
    if (w !== undefined && x.words.has(w) && y.words.has(w) && !COMMON.has(w)) return true;
  }
  return false;
}

/**
 * Two changes told alike ("This PR sets the default output format to" / "… log format to"), each
 * with a word the other lacks: parallel settings, told apart by that word as they would be without
 * a change. `ox` and `oy` are `onlyCounts` of each against the other.
 */
function parallelChanges(x: PredicateShape, y: PredicateShape, ox: { heavy: number }, oy: { heavy: number }): boolean {
  return x.change && y.change && ox.heavy > 0 && oy.heavy > 0;
}

/**
 * The rules every pair meets unless one side is told as a change: words swapped on each side are
 * the shape of two facts unless the pair shares enough words of its own.
 */
function strictlyNear(onlyXCount: number, onlyYCount: number, shared: number, sharedFacts: number, shorter: number, inPlace: () => boolean): boolean {
  const substitutions = Math.min(onlyXCount, onlyYCount);
  // Two statements that share most of their words and swap one or two in place (staging for
  // production, reader for writer, logins per minute for signups per hour) are the shape of two
  // facts told apart by a qualifier; a rewording shares fewer words, or says its own where the
  // other says nothing, and differs in how it is said.
  if (substitutions >= 1 && Math.max(onlyXCount, onlyYCount) <= (shared >= 2 ? 2 : 1) && inPlace()) return false;
  // Each side naming two or more things the other does not, around less than half of the
  // shorter one in common: two facts that share a word or two ("web", "deploy").
  if (substitutions >= 2 && shared / shorter < 0.5 && inPlace()) return false;
  // With something swapped on each side, one word in common ("long", "pin", "offsite") is a
  // coincidence of wording; a word naming the subject or a common verb is none at all.
  if (substitutions >= 1 && (sharedFacts === 0 || (sharedFacts === 1 && inPlace()))) return false;
  return true;
}

/** Among many facts of a kind, every swap is read as one (`scoreShapes` without `alone`). */
const anySwap = () => true;

/** Cells of the table `swappedInPlace` lines two statements up in: two statements of 63 tokens each. */
const ALIGN_LIMIT = 64 * 64;

/**
 * Whether every word of the fact that one statement says and the other does not stands where the
 * other says one of its own: lined up on the longest run of the words they share in one order,
 * each gap between two of them holding a word of the fact on one side holds one on the other
 * ("logins are limited to {quantity} per minute" / "signups … per hour"). A word said where the
 * other says none of its own ("the docs site is published at" / "the docs are deployed to") is how
 * one statement is worded, not a thing swapped. Linking verbs and words of the subject's name are
 * no word of the fact here, as in `onlyCounts`.
 */
function swappedInPlace(x: PredicateShape, y: PredicateShape): boolean {
  // Where the two share words in more than one order, the longest run can be chosen more than one
  // way: lined up from each side, a pair is a swap in place if either way shows one, so the answer
  // is the same whichever of the two is x.
  return inPlaceFrom(x, y) || inPlaceFrom(y, x);
}

function inPlaceFrom(x: PredicateShape, y: PredicateShape): boolean {
  const a = x.seq;
  const b = y.seq;
  // A word of the fact as the sequence holds it: in the statement's words, or written as said where
  // its words hold another form ("per hour" is "hourly" there), and in neither of the other's.
  const own = (s: PredicateShape, o: PredicateShape, w: string) =>
    (s.words.has(w) || (!w.startsWith('{') && !FILLER.has(w))) && !o.words.has(w) && !LIGHT.has(w) && !s.named.has(w) && !o.named.has(w);
  // The longest common subsequence, by dynamic programming: quadratic, so only over statements of
  // a line or two. Longer ones (a note can be as long as the door allows) are read as before this
  // rule, a swap, and cost nothing more.
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > ALIGN_LIMIT) return true;
  const table = new Uint16Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      table[i * (m + 1) + j] = a[i] === b[j] ? table[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  let gapX = false;
  let gapY = false;
  const closeGap = () => {
    const apart = gapX !== gapY;
    gapX = gapY = false;
    return apart;
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      if (closeGap()) return false;
      i += 1;
      j += 1;
    } else if (j >= m || (i < n && table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!)) {
      if (own(x, y, a[i]!)) gapX = true;
      i += 1;
    } else {
      if (own(y, x, b[j]!)) gapY = true;
      j += 1;
    }
  }
  return !closeGap();
}

/**
 * At most this many loose pairs for one statement told as a change. A change that shares a word
 * with more facts than this, or that has a nearer fact to restate (a pair by the strict rules),
 * names none of them in particular: its loose pairs are left out. In a subject of two memories
 * the one loose pair is shown; in a subject of a thousand, "the search invoice sync now happens on
 * {weekday}" does not pair with every other team's sync.
 */
export const LOOSE_LIMIT = 3;

/**
 * A word held by more than this many memories of one block proposes no pair. Every pair sharing
 * a word was scored, so a subject of thousands of keys sharing one ("setting 0" … "setting 1999")
 * cost every pair of them (two million at 2,000 keys, a second of a first compile; a hundred
 * times that at 20,000) to find none. Such a word names none of them in particular, as a change
 * sharing a word with too many facts does (`LOOSE_LIMIT`); the pairs it would have proposed
 * still come through any rarer word they share, and are scored on all their words.
 */
export const WORD_LIMIT = 500;

/**
 * The candidate pairs among a subject's memories, a set function: the same memories in any order
 * give the same pairs in the same order (by a, then b). Memories are blocked by scope,
 * qualifiers and slot kinds, then compared only when they share a content word, so a subject of
 * thousands of unrelated predicates costs far less than every pair.
 */
export function findCandidates(memories: readonly CandidateInput[], threshold: number = CANDIDATE_THRESHOLD, focus?: ReadonlySet<string>, wordLimit: number = WORD_LIMIT): CandidatePair[] {
  return candidatesAround(memories, threshold, focus, wordLimit).pairs;
}

/**
 * The pairs that hold a memory of `focus` (every pair without one), and the focus they were
 * computed for: `focus` widened by every memory of a block of three or fewer that holds one of it
 * (whether two memories are a sole restatement, or a pair worded apart, depends on their block's
 * size), then by every
 * statement told as a change that pairs with a memory in it, since whether its loose pairs are
 * kept depends on all its pairs. Every pair without a member
 * of the widened focus is what it was before the focus changed.
 *
 * Three passes at most, whatever the subject: the widened focus, then the changes that pair with
 * it, scored only for their counts. A pair of such a change with a memory outside the focus is
 * not returned: both ends' pairs are as they were (neither pairs with what was added or removed),
 * so it is too. Widening until nothing more joins would follow a chain of changes, each sharing a
 * word with the next, one pass per link.
 */
export function candidatesAround(
  memories: readonly CandidateInput[],
  threshold: number = CANDIDATE_THRESHOLD,
  focus?: ReadonlySet<string>,
  wordLimit: number = WORD_LIMIT,
): { pairs: CandidatePair[]; focus: ReadonlySet<string> | undefined } {
  const byId = new Map<string, PredicateShape>();
  const subjects = new Map<string, ReadonlySet<string>>();
  for (const m of memories) byId.set(m.memory_id, shapeOf(m, subjects));
  const blocks = candidateBlocks(byId, wordLimit);
  // A word the focus took past the limit no longer proposes the pairs it proposed between other
  // memories: every pair is recomputed (the focus returned is none).
  if (!focus || crossesWordLimit(blocks, focus, wordLimit)) return { pairs: withSole(keepLoose(scoredPairs(byId, blocks, threshold), byId), byId, blocks, threshold), focus: undefined };
  const widen = (pairs: readonly CandidatePair[], to: ReadonlySet<string>) => {
    const more = new Set(to);
    for (const p of pairs) for (const id of [p.a, p.b]) if (byId.get(id)!.change) more.add(id);
    return more;
  };
  // A block holding one of the focus that has, or had without it, a few memories: whether its two
  // memories are each other's only fact of their kind (`soleRestatement`, `wordedApart`) changes with its size,
  // so all of it is recomputed. Two memories joined by three new ones were a sole pair, and are none now.
  const start = new Set(focus);
  for (const { ids } of blocks) {
    let focused = 0;
    for (const id of ids) if (focus.has(id)) focused += 1;
    if (focused > 0 && (ids.length <= 3 || ids.length - focused <= 2)) for (const id of ids) start.add(id);
  }
  let pairs = scoredPairs(byId, blocks, threshold, start);
  const wide = widen(pairs, start);
  if (wide.size > start.size) pairs = scoredPairs(byId, blocks, threshold, wide);
  // Every change at the end of a pair of the focus, its pairs all scored: what keepLoose counts.
  const counted = widen(pairs, wide);
  if (counted.size > wide.size) pairs = scoredPairs(byId, blocks, threshold, counted);
  const touches = (p: CandidatePair) => wide.has(p.a) || wide.has(p.b);
  return { pairs: withSole(keepLoose(pairs, byId), byId, blocks, threshold).filter(touches), focus: wide };
}

/**
 * A statement told as a change restates an earlier fact, often in none of its words ("Bartholomew
 * starts work at {time} now that the school run changed" / "I usually start my day at {time}").
 * Where the subject holds exactly two facts with the same slots, scope and qualifiers and one of
 * them is told as a change, the other is the only fact it can restate: the two are a pair even
 * when they share no word. A plan is still no restatement of what is (unless the value is a date),
 * and neither is a note. In a subject of many facts of one kind this never applies — a change
 * there names none of them in particular, as `LOOSE_LIMIT` says of loose pairs.
 */
function soleRestatement(x: PredicateShape, y: PredicateShape): { score: number; reason: string; opposite?: true } | null {
  if (x.slots === '' || x.slots === 'note' || !(x.change || y.change)) return null;
  const ox = onlyCounts(x, y);
  const oy = onlyCounts(y, x);
  // Parallel changes that also share a word of the fact (words of the subject's name aside) say
  // what each sets, and neither restates the other.
  if (parallelChanges(x, y, ox, oy) && [...x.words].some((w) => y.words.has(w) && !x.named.has(w) && !y.named.has(w))) return null;
  if (planApart(x, y)) return null;
  // A qualifier on each side ("outbound" / "incoming") is still two facts, as are the two ways of a route.
  if (qualifiedApart(ox, oy) || reversed(x, y)) return null;
  const parts = [`same slots ${x.slots}`, 'the only two facts with them here', 'told as a change'];
  if (x.negated !== y.negated) parts.push('one side negated');
  return { score: SHARED_FLOOR, reason: parts.join('; '), ...(x.negated !== y.negated ? { opposite: true as const } : {}) };
}

/**
 * The only two facts of their kind in a subject, worded apart: a pair by the rules of two that
 * stand alone (`scoreShapes` with `alone`), which read words swapped out of place as wording.
 */
function wordedApart(x: PredicateShape, y: PredicateShape, threshold: number): { score: number; reason: string; opposite?: true } | null {
  const scored = scoreShapes(x, y, true);
  if (!scored || scored.score < threshold) return null;
  const { loose: _, ...pair } = scored;
  return { ...pair, reason: `${pair.reason}; the only two facts with them here` };
}

/**
 * `pairs` and, for each block of exactly two memories that are not already a pair, their sole
 * restatement, or else the pair they make worded apart.
 */
function withSole(pairs: CandidatePair[], byId: ReadonlyMap<string, PredicateShape>, blocks: readonly Block[], threshold: number): CandidatePair[] {
  if (threshold > SHARED_FLOOR) return pairs;
  const paired = new Set(pairs.map((p) => `${p.a}\u0000${p.b}`));
  const out = [...pairs];
  for (const { ids } of blocks) {
    if (ids.length !== 2) continue;
    const [a, b] = ids as [string, string];
    if (paired.has(`${a}\u0000${b}`)) continue;
    const x = byId.get(a)!;
    const y = byId.get(b)!;
    if (oneDocument(x, y)) continue;
    const sole = soleRestatement(x, y) ?? wordedApart(x, y, threshold);
    if (sole) out.push({ a, b, ...sole });
  }
  return out.length === pairs.length ? pairs : out.sort((p, q) => compareStrings(p.a, q.a) || compareStrings(p.b, q.b));
}

/** Two keys one document states: two facts as it is written (`documentsOf`). */
function oneDocument(x: PredicateShape, y: PredicateShape): boolean {
  if (x.documents === null || y.documents === null) return false;
  const [small, large] = x.documents.size <= y.documents.size ? [x.documents, y.documents] : [y.documents, x.documents];
  for (const d of small) if (large.has(d)) return true;
  return false;
}

interface Block {
  ids: string[];
  /** The memories (by index in `ids`) holding each word that proposes pairs. */
  byWord: Map<string, number[]>;
  /** Words held by more than `WORD_LIMIT` memories of the block, which propose none. */
  beyond: Map<string, number[]>;
}

/** Whether a word of a block holds more than `limit` memories with the focus and at most `limit` without it. */
function crossesWordLimit(blocks: readonly Block[], focus: ReadonlySet<string>, limit: number): boolean {
  for (const { ids, beyond } of blocks) {
    for (const list of beyond.values()) {
      let focused = 0;
      for (const i of list) if (focus.has(ids[i]!)) focused += 1;
      if (list.length - focused <= limit) return true;
    }
  }
  return false;
}

function candidateBlocks(byId: ReadonlyMap<string, PredicateShape>, wordLimit: number): Block[] {
  const blocks = new Map<string, string[]>();
  for (const [id, s] of byId) {
    const block = `${s.scope}\u0001${s.qualifiers}\u0001${s.slots}`;
    const list = blocks.get(block);
    if (list) list.push(id);
    else blocks.set(block, [id]);
  }
  return [...blocks.values()].map((ids) => {
    ids.sort(compareStrings);
    const byWord = new Map<string, number[]>();
    ids.forEach((id, i) => {
      for (const w of byId.get(id)!.words) {
        // A pair sharing only common verbs is never a candidate once either side adds a word.
        if (COMMON.has(w)) continue;
        const list = byWord.get(w);
        if (list) list.push(i);
        else byWord.set(w, [i]);
      }
    });
    const beyond = new Map<string, number[]>();
    for (const [w, list] of byWord) {
      if (list.length <= wordLimit) continue;
      beyond.set(w, list);
      byWord.delete(w);
    }
    return { ids, byWord, beyond };
  });
}

function scoredPairs(byId: ReadonlyMap<string, PredicateShape>, blocks: readonly Block[], threshold: number, focus?: ReadonlySet<string>): CandidatePair[] {
  const out: CandidatePair[] = [];
  for (const { ids, byWord } of blocks) {
    // The last i that proposed each j: a j shared through several words is scored once.
    const proposedBy = new Int32Array(ids.length).fill(-1);
    // With a focus (the memories a compile created), only pairs that hold one of them — the pair
    // function is pure, so the other pairs are what they were — and only the focus's own word
    // lists are read: a compile that creates one key in a subject of thousands sharing a word
    // reads one list, not every memory's.
    const from = focus ? ids.flatMap((id, i) => (focus.has(id) ? [i] : [])) : ids.map((_, i) => i);
    for (const i of from) {
      for (const w of byId.get(ids[i]!)!.words) {
        const list = byWord.get(w);
        if (!list) continue;
        // Without a focus each list is read from past i, so every pair is proposed once, by its
        // first; with one, from its start, and a pair of two focused memories by the first of them.
        for (let k = focus ? 0 : firstAbove(list, i); k < list.length; k += 1) {
          const j = list[k]!;
          if (j === i || proposedBy[j] === i || (j < i && focus!.has(ids[j]!))) continue;
          proposedBy[j] = i;
          const [lo, hi] = i < j ? [i, j] : [j, i];
          if (oneDocument(byId.get(ids[lo]!)!, byId.get(ids[hi]!)!)) continue;
          const scored = scoreShapes(byId.get(ids[lo]!)!, byId.get(ids[hi]!)!);
          if (scored && scored.score >= threshold) out.push({ a: ids[lo]!, b: ids[hi]!, ...scored });
        }
      }
    }
  }
  return out.sort((p, q) => compareStrings(p.a, q.a) || compareStrings(p.b, q.b));
}

/** The position of the first entry of a sorted list greater than `i`. */
function firstAbove(list: readonly number[], i: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! > i) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Drops each loose pair whose statement told as a change has a strict pair or too many loose ones. */
function keepLoose(pairs: readonly CandidatePair[], byId: ReadonlyMap<string, PredicateShape>): CandidatePair[] {
  const strict = new Map<string, number>();
  const loose = new Map<string, number>();
  for (const p of pairs) {
    const counts = p.loose ? loose : strict;
    for (const id of [p.a, p.b]) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const restates = (id: string) => !byId.get(id)!.change || ((strict.get(id) ?? 0) === 0 && (loose.get(id) ?? 0) <= LOOSE_LIMIT);
  return pairs.filter((p) => !p.loose || (restates(p.a) && restates(p.b))).map(({ loose: _, ...p }) => p);
}

/**
 * A memory keeps, and shows, at most this many of its candidates: its best, by score then id (a
 * proposal naming a pair that is no candidate of it comes after them). A subject of hundreds of
 * keys worded alike had every pair among them in its rows (500 keys sharing a word: 499
 * candidates each, 30 MB, read again by every compile that created a key there, and 15 MB for
 * a page of 100); now a row holds twenty, whatever the subject, and a page a few hundred.
 */
export const CANDIDATES_SHOWN = 20;

/**
 * A memory's candidates as its row keeps them: the scored refs of `refs` (a proposal-only ref,
 * score 0, is added back by whoever applies the proposals), best first, the first
 * `CANDIDATES_SHOWN`. A set function of the memory's pairs, like the pairs themselves.
 */
export function keptCandidates(refs: readonly CandidateRef[], limit: number = CANDIDATES_SHOWN): CandidateRef[] {
  const scored = refs.filter(isScored).sort(compareCandidateRefs);
  if (scored.length > limit) scored.length = limit;
  return scored;
}

/** A candidate, not a ref that only carries a link proposal (score 0): every pair scores 0.5 or more. */
const isScored = (r: CandidateRef): boolean => r.score > 0;

/** Whether a kept list is full: what ranked after its last ref was not kept. */
function keepsFullList(refs: readonly CandidateRef[], limit: number): boolean {
  return refs.filter(isScored).length >= limit;
}

/**
 * Each memory's kept candidates (`keptCandidates`) after memories were created, from what the
 * rows kept before: the same lists a computation of every pair gives, a set function of the
 * memories, whatever was kept. `created` absent: every pair is computed. `silenced` drops a pair
 * (a `same: false` link). Only memories with candidates are in the map.
 *
 * Pairs without a memory of the (widened) focus are as they were, so a row outside it keeps its
 * refs and takes in the new pairs — unless its list is full and names a memory of the focus,
 * whose pair with it may be gone: what ranked after its last kept ref was not kept and may rank
 * in now, so that row is computed again. A new key worded like hundreds of others names none of
 * them yet: their rows take it in or not without being computed again. Two rounds of that at
 * most, then every pair.
 */
export function keptCandidateLists(
  memories: readonly CandidateInput[],
  stored: ReadonlyMap<string, readonly CandidateRef[]>,
  created: ReadonlySet<string> | undefined,
  silenced: (a: string, b: string) => boolean = () => false,
  limit: number = CANDIDATES_SHOWN,
): Map<string, CandidateRef[]> {
  let around = candidatesAround(memories, undefined, created);
  for (let round = 0; around.focus; round += 1) {
    const focus = around.focus;
    const again: string[] = [];
    for (const [id, refs] of stored) if (!focus.has(id) && keepsFullList(refs, limit) && refs.some((c) => focus.has(c.memory_id))) again.push(id);
    if (again.length === 0) break;
    around = candidatesAround(memories, undefined, round < 2 ? new Set([...focus, ...again]) : undefined);
  }
  const byMemory = candidatesByMemory(around.pairs.filter((p) => !silenced(p.a, p.b)));
  const focus = around.focus;
  if (focus) {
    for (const m of memories) {
      const id = m.memory_id;
      if (focus.has(id)) continue;
      const kept = (stored.get(id) ?? []).filter((c) => !focus.has(c.memory_id));
      const added = byMemory.get(id) ?? [];
      if (kept.length + added.length > 0) byMemory.set(id, [...kept, ...added]);
    }
  }
  for (const [id, list] of byMemory) {
    const kept = keptCandidates(list, limit);
    if (kept.length > 0) byMemory.set(id, kept);
    else byMemory.delete(id);
  }
  return byMemory;
}

/** The refs of a memory's kept list that are shown: its first `CANDIDATES_SHOWN`. */
export function shownCandidates<T>(refs: readonly T[] | null | undefined): readonly T[] {
  if (!refs) return [];
  return refs.length > CANDIDATES_SHOWN ? refs.slice(0, CANDIDATES_SHOWN) : refs;
}

/** Best first, then by memory id: the order a memory's candidates are kept and shown in. */
export function compareCandidateRefs(p: CandidateRef, q: CandidateRef): number {
  return q.score - p.score || compareStrings(p.memory_id, q.memory_id);
}

/** Each memory's candidates, both ways, sorted by score (highest first), then id. */
export function candidatesByMemory(pairs: readonly CandidatePair[]): Map<string, CandidateRef[]> {
  const out = new Map<string, CandidateRef[]>();
  const add = (id: string, ref: CandidateRef) => {
    const list = out.get(id);
    if (list) list.push(ref);
    else out.set(id, [ref]);
  };
  for (const p of pairs) {
    const opposite = p.opposite ? { opposite: true as const } : {};
    add(p.a, { memory_id: p.b, score: p.score, reason: p.reason, ...opposite });
    add(p.b, { memory_id: p.a, score: p.score, reason: p.reason, ...opposite });
  }
  for (const list of out.values()) list.sort(compareCandidateRefs);
  return out;
}
