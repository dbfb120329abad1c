import type { Claim, ClaimOrigin } from './claim.js';
import type { ClaimInput, ClaimOp, Episode } from './episode.js';
import { inStoredYears, keyPartFits } from './episode.js';
import type { FactKey, FactKeyParts } from './fact-key.js';
import { factKeyString, makeFactKey, memoryId } from './fact-key.js';
import type { Json } from './normalize.js';
import { compareStrings, fingerprint, normalizeConditions, normalizeText, normalizeValue, valueKey } from './normalize.js';
import type { PolicySet } from './policy.js';
import { policyFor } from './policy.js';
import type { CueMatch } from './cues.js';
import { PREVIOUS_VALUE_CUE, qualifyingCues, readCues } from './cues.js';
import { resolveDate, maskFrequency, maskSlots, quantityUnit, templateOf } from './slots.js';
import type { DateContext, Masked, Slot, SlotType } from './slots.js';
import { addDays, isoDate, isValidDate, startOfDay } from './dates.js';
import { compareInstants } from './order.js';
import { standingFor } from './standing.js';
import { EXTRACTOR_VERSION } from './version.js';
import { readDocument } from './documents/read-document.js';

/** The predicate of text with no slot: a note keyed by its normalized fingerprint. */
export const NOTE_PREDICATE = 'note';

interface Draft {
  predicate: string;
  qualifiers?: Record<string, string> | undefined;
  op: ClaimOp;
  value: Json;
  text: string;
  conditions: string[];
  correction: boolean;
  settles: Claim['settles'];
  effective: string | null;
  matches: CueMatch[];
  origin: ClaimOrigin;
}

/** For a `many` key, `replace` states a set: members sorted and de-duplicated. */
function asSet(value: Json): Json {
  const items = Array.isArray(value) ? value : value === null ? [] : [value];
  const byKey = new Map(items.map((m) => [valueKey(m), m] as const));
  return [...byKey.keys()].sort(compareStrings).map((k) => byKey.get(k)!);
}

/**
 * The cues of every sentence of a text, in order. A question mark qualifies only a text that asks
 * and never states: "Hi Greg — can you check? The CMDB shows db-7." states db-7.
 */
export function textCues(text: string): CueMatch[] {
  const all = sentences(text);
  const asks = all.length > 0 && all.every((s) => /\?\s*$/u.test(s));
  return all.flatMap((s) => qualifyingCues(s)).filter((m) => asks || m.cue.name !== 'question');
}

/**
 * A structured claim, qualified by the words it came with (design §3): the claim's own text, or
 * the episode's. The text lowers its standing, marks it a correction, dates it or attests it, as
 * it would an extracted claim; a flag the caller set on the claim (`correction`,
 * `effective_from`) wins over what the text says.
 */
function fromStructured(input: ClaimInput, episode: Episode, policies: PolicySet, ctx: DateContext, cuesOf: (text: string) => CueMatch[]): Draft {
  const op = input.op ?? 'assert';
  const predicate = normalizeText(input.predicate);
  let value = normalizeValue(input.value ?? null);
  if (op === 'replace' && policyFor(policies, predicate).cardinality === 'many') value = asSet(value);
  // A document's text is content, not words about the claims beside it: a README saying
  // "maybe" somewhere must not hedge the file's inventory claim.
  const text = normalizeText(input.text ?? (episode.kind === 'document' ? '' : (episode.body.text ?? '')));
  const matches = cuesOf(text);
  const settles = input.settles ?? [];
  const worded = matches.some((m) => m.cue.class === 'correction');
  return {
    predicate,
    qualifiers: input.qualifiers,
    op,
    value,
    text,
    conditions: normalizeConditions(input.conditions),
    correction: input.correction ?? (episode.kind === 'correction' || settles.length > 0 || worded),
    settles,
    effective: input.effective_from ?? effectiveOf(matches, ctx),
    matches,
    origin: 'structured',
  };
}

/** Lines, then sentences; list markers and heading marks are layout, not words. */
export function sentences(text: string): string[] {
  return normalizeText(text)
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[\p{Lu}\d"“'(\[])/u))
    .map((s) => s.replace(/^(?:[-*•+>]|\d+[.)]|#{1,6})\s+/, '').trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A period named by a year, a month, a quarter or a half and a year ("2017", "Aug 2022", "Q3
 * 2023", "H1 2021"): its start, when the whole period lies before the episode — a statement about
 * the past. A period still running is no date.
 */
export function pastPeriod(when: string, ctx: DateContext): string | null {
  const m = /^(?:([a-z]+[1-4]?)\.?\s+)?(\d{4})$/iu.exec(when.trim());
  if (!m) return null;
  const year = Number(m[2]);
  const part = m[1]?.toLowerCase();
  let first = 1;
  let months = 12;
  if (part) {
    const quarter = /^q([1-4])$/.exec(part);
    const half = /^h([12])$/.exec(part);
    if (quarter) [first, months] = [(Number(quarter[1]) - 1) * 3 + 1, 3];
    else if (half) [first, months] = [(Number(half[1]) - 1) * 6 + 1, 6];
    else {
      const month = MONTHS.indexOf(part.slice(0, 3)) + 1;
      if (month === 0) return null;
      [first, months] = [month, 1];
    }
  }
  const endIndex = first - 1 + months; // months after January of `year`
  const end = { year: year + Math.floor(endIndex / 12), month: (endIndex % 12) + 1, day: 1 };
  if (compareInstants(startOfDay(end, ctx.timeZone), ctx.occurredAt) > 0) return null;
  return startOfDay({ year, month: first, day: 1 }, ctx.timeZone);
}

function effectiveOf(matches: readonly CueMatch[], ctx: DateContext): string | null {
  for (const m of matches) {
    const cls = m.cue.class;
    if (cls !== 'change' && cls !== 'dated' && cls !== 'attestation') continue;
    if (!m.when) return ctx.occurredAt;
    const period = pastPeriod(m.when, ctx);
    if (period) return period;
    const resolved = resolveDate(m.when, ctx);
    if (!resolved) continue;
    // A month not yet over dates nothing ("might end in March 2026" is no record of March): only
    // a change names a month ahead, from its first day ("effective October 2027").
    if (/^\d{4}-\d{2}$/.test(resolved) && cls !== 'change') continue;
    if (resolved.length > 10) return resolved;
    // A month of a year ("effective October 2027") starts on its first day.
    const [y, mo, d] = resolved.split('-').map(Number) as [number, number, number?];
    const start = startOfDay({ year: y, month: mo, day: d ?? 1 }, ctx.timeZone);
    // A day or month the statement is made in ("effective today", "(changed today)", "as of this
    // month") holds no hour: from its start, the change landed before what the same writer said
    // earlier that day, and the older value stayed current. It is in effect when it is said.
    const end = startOfDay(d === undefined ? { year: y + Math.floor(mo / 12), month: (mo % 12) + 1, day: 1 } : addDays({ year: y, month: mo, day: d }, 1), ctx.timeZone);
    return compareInstants(start, ctx.occurredAt) <= 0 && compareInstants(ctx.occurredAt, end) < 0 ? ctx.occurredAt : start;
  }
  return null;
}

/**
 * A contrast at a sentence's end naming the value it replaces (", not Tuesday", "(not Tuesday)",
 * "rather than Tuesday", "instead of Tuesday"): a few words after a comma or in parentheses, or
 * after "rather than" / "instead of". Left in, "…runs on Thursday, not Tuesday." was a template
 * of its own holding both days, beside the fact it corrects; a "not" with no comma before it is
 * a negation and stays, and so does ", not even …", ", not until …" (no value replaced).
 */
const CONTRAST_TAIL =
  /(?:,\s*(?:and\s+)?(?:not(?!\s+(?:even|only|just|yet|ever|always|necessarily|quite|so|too|very|all|every|any|really|entirely|exactly|until|unless|because|if|when)\b)|rather than|instead of)|\s+(?:rather than|instead of))\s+[^\s,;()]+(?:\s+[^\s,;()]+){0,5}(?=[\s.!?]*$)|\s*\((?:not|rather than|instead of)\s+[^()]{1,60}\)(?=[\s.!?]*$)/iu;

/**
 * The sentence without its contrast, and the value the contrast names — only when it names one
 * value of a kind the sentence states (", not Tuesday" beside a weekday; ", not 10:00" beside a
 * time). ", not on holidays", ", not MySQL", "instead of Tuesday during holiday weeks" name no such
 * value, or say more than one: they stay words of the statement, and correct nothing.
 */
function contrastOf(sentence: string, ctx: DateContext): Contrast | null {
  const m = CONTRAST_TAIL.exec(sentence);
  const previous = m ? null : PREVIOUS_TAIL.exec(sentence);
  const tail = m ?? previous;
  if (!tail || tail.index <= 0) return null;
  const lead = m ? /^[\s,(]*(?:and\s+)?(?:not|rather than|instead of)\s+/iu : /^[\s,(]*[a-z]+(?:\s+(?:to be|from))?\s+/iu;
  const named = tail[0].replace(lead, '').replace(/^(?:(?:on|at|in|to|from|for|by|of)\s+)/iu, '').replace(/[\s).!?]*$/u, '');
  const masked = valuesOf(named, ctx);
  if (masked.slots.length !== 1 || masked.parts.some((p) => p.trim() !== '')) return null;
  return { rest: sentence.slice(0, tail.index) + sentence.slice(tail.index + tail[0].length), replaced: masked.slots[0]!, kind: m ? 'correction' : 'change' };
}

interface Contrast {
  rest: string;
  replaced: Slot;
  /** ", not Tuesday" says the old value was wrong; "(previously Tuesday)" that it changed. */
  kind: 'correction' | 'change';
}

const PREVIOUS_TAIL = new RegExp(`(?:${PREVIOUS_VALUE_CUE.pattern})(?=[\\s.!?]*$)`, 'iu');

/** The values of a sentence: its slots, or, with none, how often it says something happens. */
function valuesOf(text: string, ctx: DateContext): Masked {
  const found = maskSlots(text, ctx);
  return found.slots.length > 0 ? found : (maskFrequency(text) ?? found);
}

/** Two values of one kind: the same slot, and for a quantity the same unit ("16 GB" is no "16 cores"). */
function sameKind(a: Slot, b: Slot): boolean {
  return a.type === b.type && (a.type !== 'quantity' || quantityUnit(a.text) === quantityUnit(b.text));
}

// Where a sentence joins two statements: ", and the …", "; ", " while our …". Read between the
// slots only, so a value (a quoted name with "and" in it) is never cut.
const CLAUSE_BREAK = /(?:,\s*|\s+)(?:and|while|whereas|but)\s+(?=(?:the|our|its|their|a|an|each|every)\s)|;\s+/iu;
const LEAD_IN = /^\s*(?:in|for|before|after|during|on|at|when|whenever|if|while|until|since|unless|once|because|with|without|under|from|as|by|per|according|within|outside|across)\b/iu;
const STATES = /\b(?:is|are|was|were|runs?|uses?|has|have|takes?|lives?|stays?|points?|goes|opens?|closes?|starts?|ends?)\b/iu;

/**
 * The statements of a sentence that joins several, each with its own value: "The read timeout is
 * 30 seconds and the write timeout is 60 seconds" is two facts, not one whose value is the pair
 * (a later "The write timeout is 90 seconds." would then stand beside it, unflagged). Split only
 * when every part states something (a verb of state) about a value of its own; else the sentence
 * is one statement ("Deploys run on Tuesday and Thursday").
 */
function clausesOf(masked: Masked): Masked[] {
  if (masked.slots.length < 2) return [masked];
  // "In staging, the read timeout is … and the write timeout is …", "If …": what opens the
  // sentence bears on every part of it; cut apart, the later parts would lose it.
  if (/,/u.test(masked.parts[0]!) || LEAD_IN.test(masked.parts[0]!)) return [masked];
  const clauses: Array<{ parts: string[]; slots: Slot[] }> = [{ parts: [''], slots: [] }];
  masked.parts.forEach((part, i) => {
    part.split(CLAUSE_BREAK).forEach((piece, j) => {
      if (j > 0) clauses.push({ parts: [''], slots: [] });
      const c = clauses.at(-1)!;
      c.parts[c.parts.length - 1] += piece;
    });
    if (i < masked.slots.length) {
      const c = clauses.at(-1)!;
      c.slots.push(masked.slots[i]!);
      c.parts.push('');
    }
  });
  if (clauses.length < 2 || !clauses.every((c) => c.slots.length > 0 && STATES.test(c.parts.join(' ')))) return [masked];
  // A statement that began a sentence with a capital keeps it, so it is keyed as it is said alone.
  const capital = /^\p{Lu}/u.test(masked.parts[0]!);
  return clauses.map(({ parts, slots }, k) => {
    const own = k > 0 && capital ? [parts[0]!.replace(/^\p{Ll}/u, (ch) => ch.toUpperCase()), ...parts.slice(1)] : parts;
    return { template: templateOf(own, slots), slots, parts: own };
  });
}

/**
 * Which of a sentence's slots are its values. Two readings change what `maskSlots` found:
 * - a change told "from A to B" (a change cue, two values of one kind) states B: "We moved the
 *   staging deploy from Tuesday to Thursday" is `We moved the staging deploy to {weekday}` =
 *   Thursday, not a fact whose value is the pair;
 * - a name said first, with a measure after it ("Tier 1 customers get a 4 hour response time",
 *   "Node 18 reaches end of life on 2025-04-30", "us-east-1 has 6 availability zones"), is what
 *   the fact is about, not a value: kept in the predicate, so Tier 2's response time is a fact of
 *   its own rather than a change of Tier 1's.
 */
function readSlots(masked: Masked): Masked {
  let { parts, slots } = masked;
  if (slots.length < 2) return masked;
  // "Deploy day: Tuesday → Thursday": an arrow between two values of a kind states the second.
  for (let i = 0; i + 1 < slots.length; i += 1) {
    if (slots[i]!.type !== slots[i + 1]!.type || !/^\s*(?:→|->|=>|⇒)\s*$/u.test(parts[i + 1]!)) continue;
    parts = [...parts.slice(0, i + 1), ...parts.slice(i + 2)];
    slots = [...slots.slice(0, i), ...slots.slice(i + 1)];
    break;
  }
  for (let i = 0; i + 1 < slots.length; i += 1) {
    if (slots[i]!.type !== slots[i + 1]!.type || !/\bfrom\s+$/iu.test(parts[i]!) || !/^\s+to\s+$/iu.test(parts[i + 1]!)) continue;
    // "open from Monday to Friday" is a range, even "now open from …": only a verb of change
    // before it moves a fact from one value to the other.
    if (changeBefore(parts.slice(0, i + 1).join(' '))) {
      parts = [...parts.slice(0, i), parts[i]!.replace(/from\s+$/iu, '') + parts[i + 1]!.trimStart(), ...parts.slice(i + 2)];
      slots = [...slots.slice(0, i), ...slots.slice(i + 1)];
    }
    break;
  }
  // "Dec 20 – Jan 3", written without a year, ends in the year after it starts.
  for (let i = 0; i + 1 < slots.length; i += 1) {
    const [from, to] = [slots[i]!, slots[i + 1]!];
    if (from.type !== 'date' || to.type !== 'date' || !/^\s*(?:-|–|—|to|until|till|through|thru)\s*$/iu.test(parts[i + 1]!)) continue;
    if (/\d{4}/u.test(to.text) || !/^\d{4}-\d{2}-\d{2}$/u.test(to.value) || !/^\d{4}-\d{2}-\d{2}$/u.test(from.value) || to.value >= from.value) continue;
    const [y, m, d] = to.value.split('-').map(Number) as [number, number, number];
    const later = { year: y + 1, month: m, day: d };
    // February 29 has no year after it: the range stays as written.
    if (isValidDate(later) && isoDate(later) > from.value) slots = slots.map((s, j) => (j === i + 1 ? { ...s, value: isoDate(later) } : s));
  }
  const leads = leadsOf(parts, slots);
  const named = slots.map((slot, i) => leads[i] !== undefined && namesTheFact(slot, i, leads[i]!, parts));
  if (named.some(Boolean) && !named.every(Boolean)) {
    const keptParts: string[] = [parts[0]!];
    const kept: Slot[] = [];
    slots.forEach((slot, i) => {
      if (named[i]) keptParts[keptParts.length - 1] += slot.text + parts[i + 1]!;
      else {
        kept.push(slot);
        keptParts.push(parts[i + 1]!);
      }
    });
    parts = keptParts;
    slots = kept;
  }
  return parts === masked.parts && slots === masked.slots ? masked : { template: templateOf(parts, slots), slots, parts };
}

/**
 * Whether the words before "from" tell a change: a verb of change, then what it changed, with no
 * other verb, clause or label between ("We moved the staging deploy from …"; not "We changed the
 * backup window to run from …", "… was moved and now runs from …", "Opening hours changed: from …").
 */
function changeBefore(lead: string): boolean {
  let last: RegExpExecArray | null = null;
  // A global pattern's exec walks its matches and, at the end, leaves it where it began.
  for (let m = CHANGE_VERBS.exec(lead); m !== null; m = CHANGE_VERBS.exec(lead)) last = m;
  if (!last) return false;
  const between = lead.slice(last.index + last[0].length).replace(/\bfrom\s*$/iu, '');
  return !/[:;]/u.test(between) && !STATES.test(between) && !/\b(?:and|to|then|now)\b/iu.test(between) && between.split(/\s+/u).filter((w) => w !== '').length <= 6;
}

// Verbs only: "the change window", "the night shift", "the rotation" run from one time to another.
const CHANGE_VERB =
  /\b(?:migrat(?:e|es|ed|ing)|mov(?:e|es|ed|ing)|switch(?:ed|ing)|chang(?:ed|ing)|upgrad(?:e|es|ed|ing)|downgrad(?:e|es|ed|ing)|bump(?:s|ed|ing)?|rais(?:e|es|ed|ing)|lower(?:ed|ing)|increas(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|reduc(?:e|es|ed|ing)|rotat(?:e|es|ed|ing)|renam(?:e|es|ed|ing)|transferr(?:ed|ing)|reassign(?:s|ed|ing)?|shift(?:ed|ing)|updat(?:ed|ing)|cut over|went|grew|dropped)\b/iu;
const CHANGE_VERBS = new RegExp(CHANGE_VERB.source, 'giu');

const NAME_SLOTS = new Set<SlotType>(['host', 'code', 'email', 'ip', 'url', 'quoted', 'version']);

/**
 * A slot among a sentence's first three words that names a thing rather than measuring it: a
 * host, a code, an address, a quoted name, a version, a year, or a bare number after a
 * capitalized word ("Tier 1", "SEV 2", "Node 18"). Only read so when the sentence holds a
 * value that is not a name (`readSlots`).
 */
function namesTheFact(slot: Slot, i: number, before: string, parts: readonly string[]): boolean {
  if (NAME_SLOTS.has(slot.type)) return true;
  if (slot.type !== 'quantity' || !/^\d+(?:\.\d+)*$/u.test(slot.text)) return false;
  // "The 2025 budget", "2025 revenue"; not "Since 2023 the team has …", a time said first.
  if (/^(?:19|20)\d\d$/u.test(slot.text)) return /^(?:|.*\b(?:the|our|their|its|this|that|each|every|a|an))\s*$/iu.test(parts[i]!);
  const word = /(?:^|\s)(\p{Lu}[\p{L}\p{N}.+#-]*)\s+$/u.exec(parts[i]!)?.[1];
  // "Run 4 workers on Tuesday", "Currently 12 engineers …": a verb or an adverb opening a sentence
  // is capitalized for that, not a name.
  return word !== undefined && !(before.trim() === word && OPENING_VERB.test(word));
}

/**
 * The words before each slot said among a sentence's first three words; the slots after those get
 * none. Built only that far: a sentence of 255 values and 100 KB of words is read once, not once a
 * slot.
 */
function leadsOf(parts: readonly string[], slots: readonly Slot[]): string[] {
  const leads: string[] = [];
  let before = parts[0]!;
  for (let i = 0; i < slots.length && !beyondTwoWords(before); i += 1) {
    leads.push(before);
    before += `${slots[i]!.text}${parts[i + 1]!}`;
  }
  return leads;
}

/** More than two words, counted no further than the third. */
function beyondTwoWords(text: string): boolean {
  const word = /\S+/gu;
  for (let n = 0; word.exec(text) !== null; ) if (++n > 2) return true;
  return false;
}

const OPENING_VERB =
  /^(?:run|use|keep|allow|set|add|deploy|retry|wait|give|take|send|expect|need|make|scale|limit|cap|start|stop|spin|provision|reserve|allocate|create|buy|hire|ship|book|schedule|plan|budget|pay|charge|rotate|store|retain|bump|raise|increase|decrease|reduce|lower|restart|reboot|allot|assign|get|have|hold|require|want|try|currently|over|about|around|roughly|nearly|almost|only|just|still|now|today|approximately|some|all|up|our|we|they|their|my|your|since|after|before|by|within|under)$/iu;

function fromText(text: string, episode: Episode, ctx: DateContext): Draft[] {
  const drafts: Draft[] = [];
  let episodeCorrection = episode.kind === 'correction';
  for (const sentence of sentences(text)) {
    const read = readCues(sentence);
    const { matches } = read;
    let contrast = contrastOf(read.rest, ctx);
    let found = valuesOf(contrast?.rest ?? read.rest, ctx);
    if (contrast && !found.slots.some((s) => sameKind(s, contrast!.replaced))) {
      contrast = null;
      found = valuesOf(read.rest, ctx);
    }
    const rest = contrast?.rest ?? read.rest;
    // A cue of its own qualifies every statement of the sentence: read as one statement.
    const clauses = (matches.length > 0 ? [found] : clausesOf(found)).map(readSlots);
    const masked = clauses[0]!;
    const correction = matches.some((m) => m.cue.class === 'correction');
    const body = rest.replace(/[\s.!;:,]+$/u, '');
    if (masked.slots.length === 0 && correction) {
      // "That was wrong." states no fact of its own: it marks the episode's claims as corrections.
      episodeCorrection = true;
      continue;
    }
    if (!/[\p{L}\p{N}]/u.test(body)) continue;
    const base = { op: 'assert' as const, text: sentence, conditions: [], correction, settles: [], matches, effective: effectiveOf(matches, ctx) };
    // "…runs on Thursday, not Tuesday." names the value it replaces: a correction, as "Correction:"
    // says it — of the statement the contrast closes (the last of the sentence), not of the others.
    const corrects = (k: number) => correction || (contrast?.kind === 'correction' && k === clauses.length - 1);
    // "…runs on Thursday (previously Tuesday)." names the value it replaced: a change of it, in
    // effect when said — of the statement the aside closes, as a contrast.
    const asChange = (k: number) => {
      if (contrast?.kind !== 'change' || k !== clauses.length - 1) return {};
      const told = [...matches, { cue: PREVIOUS_VALUE_CUE, when: null }];
      return { matches: told, effective: effectiveOf(told, ctx) };
    };
    if (masked.slots.length === 0) {
      drafts.push({ ...base, predicate: NOTE_PREDICATE, qualifiers: { fingerprint: fingerprint(body) }, value: body, origin: 'note' });
    } else {
      for (const [k, clause] of clauses.entries()) {
        const predicate = clause.template.replace(/[\s.!;:,]+$/u, '');
        const values = clause.slots.map((s) => s.value);
        const units = clause.slots.flatMap((s) => (s.type === 'quantity' ? [quantityUnit(s.text)] : [])).filter((u) => u !== null);
        const qualifiers = units.length > 0 ? { unit: units.join(', ') } : undefined;
        drafts.push({ ...base, ...asChange(k), correction: corrects(k), predicate, qualifiers, value: values.length === 1 ? values[0]! : values, origin: 'text' });
      }
    }
  }
  return episodeCorrection ? drafts.map((d) => ({ ...d, correction: true })) : drafts;
}

/**
 * The identities of recently seen keys. A subject's episodes mostly restate a few keys, and
 * deriving a key's string and memory id costs two canonical serializations and a SHA-256 per
 * claim. A bounded memo of a pure function: what extract returns never depends on it, and the
 * shared key objects are frozen so no caller can change one claim's key through another's.
 */
const identities = new Map<string, { fk: FactKey; key: string; memory_id: string }>();
const IDENTITY_MEMO = 4096;

function identity(parts: FactKeyParts): { fk: FactKey; key: string; memory_id: string } {
  const memo = JSON.stringify([parts.workspace_id, parts.scope, parts.owner, parts.subject, parts.predicate, parts.qualifiers ?? null]);
  let hit = identities.get(memo);
  if (!hit) {
    const fk = makeFactKey(parts);
    Object.freeze(fk.qualifiers);
    hit = { fk: Object.freeze(fk), key: factKeyString(fk), memory_id: memoryId(parts.workspace_id, fk) };
    if (identities.size >= IDENTITY_MEMO) identities.clear();
    identities.set(memo, hit);
  }
  return hit;
}

/** The author of an episode's claims: its user, or the key that wrote it when it names none. */
export function authorOf(episode: Pick<Episode, 'actor' | 'actor_key'>): string | null {
  if (episode.actor.user !== null) return episode.actor.user;
  return episode.actor_key ? `key:${episode.actor_key}` : null;
}

/**
 * The facts a document states, by its format (design §3), as drafts: each qualified by its own
 * statement (its line, its cell), never by the rest of the file.
 */
function fromDocument(episode: Episode, cuesOf: (text: string) => CueMatch[], ctx: DateContext): Draft[] {
  const path = typeof episode.body['path'] === 'string' ? episode.body['path'] : undefined;
  const reading = readDocument(path, episode.body.text ?? '');
  // A setting's value is data: `status: maybe` in a YAML file hedges nothing. Only what people
  // write in Markdown and plain text is read for cues.
  const worded = reading.format === 'markdown' || reading.format === 'text';
  return reading.facts.map((f) => {
    const text = normalizeText(f.text);
    const matches = worded ? cuesOf(text) : [];
    return {
      predicate: f.predicate,
      qualifiers: f.qualifiers,
      op: 'assert' as const,
      value: normalizeValue(f.value),
      text,
      conditions: [],
      // A file version states its content; a newer version is a change of its lineage, not a
      // correction of the old one, whatever words a line holds.
      correction: false,
      settles: [],
      effective: effectiveOf(matches, ctx),
      matches,
      origin: 'document' as const,
    };
  });
}

/**
 * A draft whose predicate and qualifiers would not fit a fact key's index entry (a sentence of
 * thousands of characters read as one template; a claim accepted before the door measured keys)
 * is kept as a note of its words, keyed by their fingerprint, or — a document's key path — left
 * to the document's searchable text: a compile never fails on the size of a key.
 */
function withinKeyLimit(d: Draft): Draft[] {
  if (keyPartFits(d.predicate, d.qualifiers)) return [d];
  if (d.origin === 'document') return [];
  const words = d.origin === 'text' ? d.text : d.predicate;
  return [{ ...d, predicate: NOTE_PREDICATE, qualifiers: { fingerprint: fingerprint(words) }, value: d.origin === 'text' ? normalizeText(d.text).replace(/[\s.!;:,]+$/u, '') : d.value, origin: 'note' }];
}

/**
 * What the door refuses now but once stored (a structured claim with a blank predicate, or dated
 * in year 0 once in UTC) is left out, so that such a log compiles: it failed every compile of its
 * subject, so no compiled state held it. A date read from words outside the stored years is no date.
 */
function storable(d: Draft): Draft[] {
  if (d.predicate === '') return [];
  if (!d.effective) return [d];
  // Written here as the claim keeps it, once.
  const t = Date.parse(d.effective);
  const effective = Number.isNaN(t) ? '' : new Date(t).toISOString();
  if (inStoredYears(effective)) return [{ ...d, effective }];
  return d.origin === 'structured' ? [] : [{ ...d, effective: null }];
}

/**
 * Turns a stored episode into claims, deterministically: the same episode, extractor version and
 * policies give the same claims, byte for byte (no clock, no randomness, no locale).
 *
 * Structured claims in the body are used as given; the text goes through the slot extractor only
 * when there are none (a body with both is a caller who already said what the text means). A
 * `document` is different: its text is a file, read by the extractor of its format after the
 * structured claims (the file's inventory claim), never sentence by sentence. A text never
 * retracts anything: it only states the claims it carries; a snapshot's lineage ends the keys a
 * newer version no longer states (design §4).
 */
export function extract(episode: Episode, policies: PolicySet, extractorVersion: string = EXTRACTOR_VERSION): Claim[] {
  // A link states something about two fact keys, not a fact: its reason is never read as one.
  if (episode.kind === 'link') return [];
  const ctx: DateContext = { occurredAt: episode.occurred_at, timeZone: policies.time_zone };
  const structured = episode.body.claims ?? [];
  // An episode's claims mostly share its one text: read the cues of each distinct text once, not
  // once per claim (1,000 claims beside a 100 KB text would otherwise scan it 1,000 times).
  const seen = new Map<string, CueMatch[]>();
  const cuesOf = (text: string) => {
    let matches = seen.get(text);
    if (!matches) seen.set(text, (matches = textCues(text)));
    return matches;
  };
  const drafts = [
    ...structured.map((c) => fromStructured(c, episode, policies, ctx, cuesOf)),
    ...(episode.kind === 'document' ? fromDocument(episode, cuesOf, ctx) : structured.length === 0 ? fromText(episode.body.text ?? '', episode, ctx) : []),
  ].flatMap(withinKeyLimit).flatMap(storable);
  return drafts.map((d, index) => {
    const { fk, key, memory_id } = identity({
      workspace_id: episode.workspace_id,
      scope: episode.scope,
      owner: episode.scope === 'personal' ? episode.owner : null,
      subject: episode.subject,
      predicate: d.predicate,
      qualifiers: d.qualifiers,
    });
    const effective = d.effective || episode.occurred_at;
    return {
      workspace_id: episode.workspace_id,
      episode_id: episode.id,
      index,
      source: episode.source,
      idempotency_key: episode.idempotency_key,
      lineage: episode.lineage,
      snapshot: episode.snapshot,
      subject: episode.subject,
      kind: episode.kind,
      occurred_at: episode.occurred_at,
      sequence: episode.sequence,
      ingested_at: episode.ingested_at,
      source_ref: episode.source_ref,
      fact_key: fk,
      key,
      memory_id,
      predicate: fk.predicate,
      op: d.op,
      value: d.value,
      text: d.text,
      conditions: d.conditions,
      correction: d.correction,
      settles: d.settles.map((r) => ({ source: r.source, idempotency_key: r.idempotency_key, index: r.index })),
      effective_from: effective,
      effective_explicit: d.effective !== null,
      standing: standingFor(episode.actor.role, d.matches),
      role: episode.actor.role,
      user: episode.actor.user,
      author: authorOf(episode),
      origin: d.origin,
      cues: [...new Set(d.matches.map((m) => m.cue.name))].sort(compareStrings),
      extractor_version: extractorVersion,
    };
  });
}
