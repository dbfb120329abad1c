import { compareStrings } from './normalize.js';
import type { FactKey } from './fact-key.js';
import { NOTE_PREDICATE } from './extract.js';
import type { Claim } from './claim.js';
import { CUES } from './cues.js';

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

// Words that carry no identity of a fact: articles, auxiliaries, pronouns, frequency and time
// adverbs. "We deploy staging every {weekday}" and "The staging deploy runs on {weekday}" differ
// only in these and in the verb.
const FILLER = new Set(
  (
    'a an the is are was were be been being am do does did has have had will would shall should can could may might must ' +
    'we our you your i my me he she it its they their them this that these those there here ' +
    'on in at of to for by with from as into onto per via within after through ' +
    'every each all any some now currently presently today still always usually normally generally typically ' +
    'also just then so too very really actually already again ' +
    'set configured going gets get got ' +
    // How a change is told, not what changed: "moved to", "switched to", "bumped to", "from now on".
    'moved move moving switched switch changed change upgraded upgrade raised bumped bump lowered lower ' +
    'cut extended extend rescheduled reschedule pushed pulled forward tightened increased decreased reduced ' +
    'went up down over back newly longer anymore since starting instead last ' +
    'these days heads reminder fyi note please only about around roughly approximately ' +
    // How firmly it is said, not what: "banned outright", "entirely remote".
    'outright entirely completely altogether totally ' +
    'and or but if when while which who whom whose what where how than then out off'
  ).split(' '),
);

// Words that say the same thing in the phrasing of a fact. Small on purpose: a synonym wrongly
// listed here can only make a candidate (a flag), never a merge.
const SYNONYMS: ReadonlyArray<readonly string[]> = [
  ['run', 'happen', 'occur', 'take', 'place', 'scheduled', 'schedule', 'go', 'goes', 'held', 'hold', 'is'],
  ['keep', 'kept', 'retain', 'retained', 'retention', 'store', 'stored', 'hold'],
  ['production', 'prod'],
  ['database', 'db'],
  ['timeout', 'time-out', 'time'],
  ['open', 'opens', 'start', 'begin', 'begins', 'kick', 'kicks', 'kickoff', 'commence'],
  ['send', 'sent', 'deliver'],
  ['say', 'told', 'tell', 'ask', 'asked'],
  ['repository', 'repo', 'repos'],
  ['reply', 'answer', 'respond'],
  ['minimum', 'min', 'floor'],
  ['theme', 'mode', 'scheme', 'colour', 'color'],
  ['alert', 'alerts', 'page', 'paged', 'paging', 'notification', 'notify', 'notified', 'ping', 'pings'],
  ['budget', 'allowance', 'spend'],
  ['allow', 'allowed', 'allows', 'permit', 'permitted', 'permits'],
  ['pull', 'pr', 'prs'],
  ['cost', 'price', 'priced', 'pay', 'pays'],
  ['meet', 'meeting', 'meets'],
  ['like', 'prefer', 'love', 'favor', 'favour', 'want', 'enjoy'],
  ['deploy', 'deployment', 'release', 'rollout', 'ship', 'shipping', 'ships', 'shipped'],
  ['use', 'using', 'utilize', 'rely', 'run'],
  ['limit', 'cap', 'maximum', 'max', 'ceiling'],
  ['timeout', 'time-out'],
  ['size', 'capacity'],
  ['end', 'finish', 'stop', 'close', 'closed', 'closure', 'closing'],
  ['meeting', 'meet', 'sync', 'standup', 'stand-up'],
  ['owner', 'own', 'owned', 'maintain', 'maintainer', 'responsible', 'lead'],
  ['cost', 'price', 'pay', 'charge', 'fee'],
  ['contact', 'email', 'mail', 'reach'],
  ['live', 'located', 'location', 'based', 'reside', 'stay'],
  ['team', 'group', 'squad'],
  ['need', 'require', 'required', 'requirement', 'must', 'mandatory'],
  ['work', 'job', 'employed', 'employer'],
  ['version', 'release'],
  ['check', 'probe', 'healthcheck'],
  ['certificate', 'cert', 'certs'],
  ['credential', 'credentials', 'creds', 'cred'],
  ['expire', 'expiry', 'expiration', 'expires', 'expired'],
  ['edit', 'editor', 'editing'],
  ['login', 'logon', 'signin', 'sign'],
  ['reset', 'resets', 'rollover', 'rolls'],
  // "Back from leave", "returning from it": the return ("returns 20 results" is another verb).
  ['back', 'returning', 'returned'],
  // Days away from work; "time off" is read as "leave" where it is said (`predicateWords`).
  ['leave', 'pto'],
  ['idle', 'inactivity', 'inactive'],
  // What comes in: "new arrivals", "incoming animals" (still a side against "outgoing": QUALIFYING).
  ['arrival', 'arrivals', 'incoming', 'arriving'],
  // "The first sailing" is "the earliest boat" ("the latest invoice" is the newest, not the last).
  ['first', 'earliest'],
  ['uptime', 'availability'],
  // The stem of "license", "licensed", and the British spelling.
  ['licens', 'licence', 'licences', 'licenced'],
];

// Words that name one thing in everyday phrasing at work — pay, documents, places, people, systems,
// travel, school, care — listed from general usage rather than from statements seen, so that they
// serve wordings no evaluation holds. Read after the list above, so a word it maps keeps its meaning
// there. Left out on purpose: words that also name a thing's kind ("van" / "truck", "depot" /
// "warehouse" are different places and vehicles), words that often name a service ("billing",
// "booking"), and synonyms of a qualifying word ("arrive" would make "arrival" one side of a pair).
const GENERAL_SYNONYMS: ReadonlyArray<readonly string[]> = [
  ['salary', 'payroll', 'wage', 'wages', 'paycheck', 'paycheque', 'compensation'],
  ['message', 'messages', 'history', 'chat', 'conversation', 'conversations'],
  ['cache', 'cached', 'caching', 'ttl'],
  ['endpoint', 'url', 'uri'],
  ['ticket', 'issue'],
  ['staff', 'staffer', 'personnel', 'workforce', 'crew'],
  ['manager', 'boss', 'supervisor'],
  ['office', 'workplace', 'building', 'hq', 'headquarters', 'premises'],
  ['close', 'shut', 'shuts'],
  ['doc', 'docs', 'document', 'documentation', 'wiki', 'handbook', 'guide', 'runbook', 'playbook'],
  ['laptop', 'computer', 'workstation', 'notebook', 'machine'],
  ['password', 'passphrase', 'passcode'],
  ['shift', 'rota', 'roster'],
  ['latency', 'lag'],
  ['deadline', 'due', 'cutoff', 'cut-off'],
  ['rule', 'policy', 'guideline'],
  ['approval', 'approve', 'approver', 'review', 'reviewer', 'signoff', 'sign-off'],
  ['build', 'ci', 'pipeline'],
  ['freeze', 'frozen'],
  ['lock', 'locked', 'pin', 'pinned'],
  ['outage', 'incident', 'downtime'],
  ['storage', 'disk'],
  ['memory', 'ram'],
  ['language', 'locale', 'lang'],
  ['appointment', 'reservation'],
  ['vendor', 'supplier', 'provider'],
  ['contract', 'agreement'],
  ['delete', 'purge', 'remove', 'erase'],
  ['monitor', 'monitoring', 'watch'],
  ['metric', 'stat', 'stats', 'statistic'],
  ['report', 'summary', 'digest', 'recap'],
  ['announcement', 'notice'],
  ['flag', 'toggle'],
  ['dependency', 'dependencies', 'dep', 'deps'],
  ['bug', 'defect'],
  ['retry', 'retries', 'attempt', 'tries'],
  ['interval', 'frequency', 'cadence'],
  ['limit', 'quota'],
  ['expense', 'expenses', 'reimbursement', 'reimburse'],
  ['hotel', 'accommodation', 'lodging'],
  ['luggage', 'baggage', 'bag', 'bags'],
  ['departure', 'depart', 'departs', 'departing'],
  ['teacher', 'instructor', 'tutor', 'trainer'],
  ['student', 'pupil', 'learner'],
  ['class', 'lesson', 'course'],
  ['exam', 'quiz', 'assessment'],
  ['grade', 'mark', 'score'],
  ['homework', 'assignment'],
  ['term', 'semester'],
  ['medication', 'medicine', 'meds', 'drug', 'prescription'],
  ['dose', 'dosage'],
  ['visit', 'visitor', 'visiting'],
  ['garbage', 'trash', 'rubbish', 'waste', 'bin', 'bins'],
  ['pickup', 'collection', 'collect', 'collected'],
  ['rent', 'lease'],
  ['tenant', 'resident'],
  ['cleaning', 'cleaner', 'housekeeping', 'janitorial'],
  ['sale', 'promo', 'promotion'],
  ['warranty', 'guarantee'],
  ['support', 'helpdesk'],
  ['reply', 'response', 'responses'],
  ['badge', 'fob', 'keycard'],
  ['wifi', 'wireless'],
  ['cost', 'fare', 'fares', 'dues', 'tuition', 'pricing', 'tariff'],
  ['leave', 'vacation', 'vacations'],
  ['phone', 'telephone', 'cellphone'],
  ['car', 'vehicle'],
  ['bus', 'shuttle'],
  ['ferry', 'boat', 'vessel'],
  ['flight', 'airline'],
  ['trip', 'travel', 'journey'],
  ['lunch', 'meal', 'catering'],
  ['gym', 'fitness'],
  ['doctor', 'physician', 'gp'],
  ['kid', 'kids', 'child', 'children'],
  ['spouse', 'wife', 'husband'],
  ['hire', 'hiring', 'recruit', 'recruiting', 'recruitment'],
  ['onboarding', 'orientation', 'induction'],
  ['training', 'workshop'],
  ['benefit', 'perk', 'perks'],
  ['insurance', 'coverage'],
  ['retirement', 'pension'],
  ['remote', 'wfh'],
  ['hostname', 'host'],
  ['cluster', 'fleet'],
  ['instance', 'vm'],
  ['environment', 'env'],
  ['config', 'configuration', 'setting', 'settings'],
  ['authentication', 'auth', 'authn'],
  ['authorization', 'authz'],
  ['permission', 'access', 'rights'],
  ['admin', 'administrator'],
  ['restore', 'recovery'],
  ['sdk', 'library', 'lib'],
  ['sprint', 'iteration'],
  ['retro', 'retrospective'],
  ['demo', 'showcase'],
  ['timezone', 'tz'],
  ['oncall', 'pager'],
  ['handover', 'handoff'],
  ['intern', 'trainee'],
  ['restaurant', 'cafe', 'canteen', 'cafeteria'],
  ['allergy', 'allergic'],
  ['practice', 'rehearsal'],
  ['subscription', 'membership'],
  ['renewal', 'renew'],
  ['cancellation', 'cancel'],
  ['coupon', 'voucher'],
  ['stock', 'inventory'],
  ['temperature', 'thermostat'],
  ['fridge', 'refrigerator'],
  ['submit', 'submission'],
  ['owner', 'led', 'headed', 'manage', 'managed', 'manages'],
  ['end', 'conclude', 'concludes'],
  ['need', 'compulsory', 'obligatory'],
  ['ban', 'banned', 'forbid', 'forbidden', 'prohibit', 'prohibited'],
  ['show', 'display', 'shown', 'displayed'],
  ['buy', 'purchase', 'bought', 'purchased'],
];

const SYNONYM_OF = new Map<string, string>();
// Verbs any statement may use: sharing only these says nothing about being one fact.
const COMMON = new Set(['run', 'keep', 'open', 'send', 'say', 'cost', 'like', 'use', 'need', 'live', 'contact', 'end', 'kick', 'meet', 'work', 'deploy']);
// Verbs that only link a thing to its value ("runs", "is", "goes", "uses", "says"), unlike
// "opens" / "closes" or "likes" / "dislikes" whose difference is the fact; and the nouns that only
// say a value is a span ("session length", "call duration").
const LIGHT = new Set(['run', 'use', 'say', 'length', 'duration']);
for (const group of SYNONYMS) for (const w of group) if (!SYNONYM_OF.has(w)) SYNONYM_OF.set(w, group[0]!);
// A general group whose first word the list above maps joins that word's group ("quota" is a "limit").
for (const group of GENERAL_SYNONYMS) for (const w of group) if (!SYNONYM_OF.has(w)) SYNONYM_OF.set(w, SYNONYM_OF.get(group[0]!) ?? group[0]!);

/** A light stemmer: enough to make "deploys", "deployed" and "deploying" one word. */
export function stem(word: string): string {
  // "Good news" is no "new" thing.
  if (word === 'news') return word;
  let w = word;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ied')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('es') && /(?:sh|ch|x|ss|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  // "running", "submitted", "planned": the consonant doubled before the ending is one.
  if (w !== word && w.length >= 4 && /([bgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** The stem without a final silent "e": "serve" and "served", "cache" and "cached" meet. */
function dropE(word: string): string {
  return word.length > 3 && word.endsWith('e') && !word.endsWith('ee') ? word.slice(0, -1) : word;
}

// Words that name which of several parallel facts a statement is about — the environment, the
// region, the direction, the rank, the end of a range. One side having such a word the other lacks
// is the shape of two facts ("the EU API" / "the API"), never of one fact reworded.
const QUALIFYING = new Set(
  (
    'staging stag production dev development test qa sandbox preview canary eu us apac emea uk region ' +
    'inbound outbound incoming outgoing read write reader writer primary replica secondary backup fallback ' +
    'first last final next previous early late minimum min maximum max least most lower upper floor ceiling ' +
    'internal external public private client server frontend backend mobile web desktop ' +
    'weekday weekend morning evening daily weekly monthly yearly annual quarterly ' +
    'warning critical error info debug major minor patch non ' +
    // How a thing is done (scheduled reports / ad-hoc exports), whether a figure is the goal or
    // what was reached (target / result), and whom a rule is for (admin / customer sessions).
    'ad hoc adhoc manual automatic automated target goal actual admin customer guest anonymous employee contractor ' +
    // "Staffed from {time}" / "staffed until {time}": the end of a span is a fact apart from its start.
    'until till ' +
    // "Default status for new / returned samples", "price for new / existing subscribers".
    'new existing returning returned old back arrival ' +
    // The kind of leave: "paid leave" / "sick leave".
    'sick bereavement sabbatical ' +
    // The stage of data: raw events / aggregated tables kept for {quantity}.
    'raw aggregated aggregate downsampled curated cleaned ' +
    // Which side of a threshold a rule is for: a premium above {percent}, a discount below it.
    'above below premium discount surcharge switch-on switch-off ' +
    // Where a thing sits or whom it is for: the front tyres and the rear ones, the north gate, adult tickets.
    'front rear inner outer north south east west northern southern eastern western indoor outdoor ' +
    'adult junior senior youth'
  ).split(' '),
);
// Words are compared stemmed ("incoming" is "incom"), so the stems qualify as well.
for (const w of [...QUALIFYING]) QUALIFYING.add(stem(w)).add(dropE(stem(w)));

const NEGATION = new Set(['not', 'no', 'never', "don't", 'dont', "doesn't", 'doesnt', "isn't", 'isnt', "aren't", 'arent', "won't", 'wont', 'cannot', "can't", 'cant', 'without', 'nobody', 'none', 'nothing']);

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
  /** Where a statement goes "from" and "to" ("from the mainland to the isle"), when it says both. */
  route: readonly [string, string] | null;
  /** Qualifiers that belong to the identity (a note's fingerprint does not). */
  qualifiers: string;
  scope: string;
}

function canonicalWord(raw: string): string {
  const s = stem(raw);
  // "Taking", "requiring": the stem lost the silent "e" of the word listed ("take", "require").
  return SYNONYM_OF.get(raw) ?? SYNONYM_OF.get(s) ?? (s !== raw ? SYNONYM_OF.get(`${s}e`) : undefined) ?? dropE(s);
}

// How a statement says that a fact changed, not what the fact is: "moved to", "was upgraded to",
// "now", "instead", "from now on", "these days". A statement told as a change restates an earlier
// fact with a new value, so it is compared with looser rules (see `scoreShapes`). Only verbs whose
// plain use is a change of a setting or a date are listed; "replaced every 3 years" or "ships with"
// are facts of their own.
const CHANGE_WORDS = new Set(
  (
    'move moved moves moving switch switched switches switching changed changing ' +
    'upgrade upgraded upgrading downgrade downgraded downgrading raised raising bump bumped bumping lowered lowering ' +
    'cut extended extending shortened shortening rescheduled rescheduling rebooked repointed renamed reassigned ' +
    'pushed postponed delayed tightened loosened relaxed increased decreased reduced scaled dropped migrated updated ' +
    'adjusted revised doubled halved expanded trimmed relocated reverted rerouted reconfigured swapped grew grown ' +
    // An end is a change too: "the Friday standup was cancelled".
    'cancelled canceled discontinued scrapped stopped suspended ' +
    'shifted upped hiked slashed lengthened narrowed widened tweaked modified altered amended transitioned ' +
    'became become turned flipped renegotiated recently lately effective since ' +
    'slipped slip slips renewed reorg raise ramped ramping stretched throttled ' +
    // A role taken by a vote or a decision: "was voted in as {quoted}", "appointed {quoted}".
    'elected appointed promoted ' +
    // A figure that moved by itself, in the past: "the error budget fell to", "p99 rose to" (the
    // present, "rises above {percent}", is the condition of an alert).
    'rose risen climbed jumped fell fallen dipped sank soared plunged surged ' +
    'now nowadays anymore instead henceforth'
  ).split(' '),
);
// Verbs that change an amount or a setting, in any inflection: "reduce relevance sampling to",
// "this raises the ceiling to", "export chunks were enlarged to". Their base forms are mostly
// WordNet 3.1's verbs under "increase" and "decrease" (make bigger / smaller) that technical
// writing uses; words that are as often a noun of a fact ("switch", "scale", "cut", "lower") are
// listed above in the forms that are only a change.
const CHANGE_VERBS = new Set(
  (
    'increase decrease reduce raise enlarge expand shrink shorten lengthen widen narrow boost hike slash halve ' +
    'triple quadruple trim bump upgrade downgrade migrate relocate reschedule postpone adjust revise tweak modify ' +
    'amend lessen diminish loosen tighten relax upsize downsize resize rescale'
  )
    .split(' ')
    .map((w) => dropE(stem(w))),
);

// What a commit or a pull request calls itself when it says what it does: "This raises the
// ceiling to", "PR increases the pool to".
const SELF = new Set(['this', 'it', 'which', 'pr', 'commit', 'patch', 'change', 'release', 'mr', 'diff']);

/**
 * "Resizes thumbnails to a width of {quantity}", "reduces sampling to {percent}": the present tense
 * of a verb of change says what a thing does each time, not that something changed — unless a
 * commit or a pull request says it of itself ("This raises the ceiling to").
 */
function habitual(toks: readonly string[], i: number): boolean {
  const w = toks[i]!;
  if (CHANGE_WORDS.has(w)) return false;
  // "For image resizing", "the reducing valve": the gerund of a verb of change names a thing,
  // unless a form of "to be" makes it what is happening ("is reducing") or it opens the line.
  if (w.endsWith('ing')) return i > 0 && !TO_BE.has(toks[i - 1] ?? '');
  // "Relaxes the coverage gate to {percent}": a line that opens with the verb is a commit's or a
  // changelog's, saying what it does.
  if (!/[^s]s$/.test(w) || i === 0) return false;
  return !SELF.has(toks[i - 1] ?? '') && !SELF.has(toks[i - 2] ?? '');
}

/**
 * Whether the word at `i` tells a change: a word of a change that neither acts on "a" thing nor
 * says what a thing does each time, or the first of a two-word phrase of change.
 */
function changeAt(toks: readonly string[], i: number): boolean {
  // "No more than {quantity}" is a bound, not "no more".
  if (toks[i + 2] === 'than' && toks[i] === 'no') return false;
  if (doneEachTime(toks, i)) return false;
  return (changeWord(toks[i]!) && !ARTICLES.has(toks[i + 1] ?? '') && !habitual(toks, i)) || CHANGE_PAIRS.has(`${toks[i]} ${toks[i + 1] ?? ''}`);
}

// Comparatives before "than", by the side of the threshold they name.
const THRESHOLD_SIDE = new Map([
  ['longer', 'above'],
  ['larger', 'above'],
  ['bigger', 'above'],
  ['shorter', 'below'],
  ['smaller', 'below'],
]);

const SEASONS = new Set(['spring', 'summer', 'autumn', 'fall', 'winter', 'year', 'quarter']);
// Verbs that move a schedule: what they change is what was planned.
const RESCHEDULED = new Set(['slipped', 'slip', 'slips', 'stretched', 'extended', 'pushed', 'postponed', 'delayed', 'rescheduled', 'lengthened', 'shortened']);

const IS_NOW = new Set(['is', 'are', 'be']);
// Conditions a rule acts on: "is suspended once a tool is overdue", "switches on when humidity drops".
const CONDITIONS = new Set(['once', 'when', 'whenever', 'if', 'after', 'while']);

/**
 * A word of change that here says what is done each time: "switches the humidifiers on when …"
 * (a switch on or off, not to something), "a release branch is cut from main every {quantity}"
 * (a thing that is cut is changed only when it is cut to or by a value), "borrowing is suspended once a
 * tool is overdue" (what a rule does under a condition).
 */
function doneEachTime(toks: readonly string[], i: number): boolean {
  const w = toks[i]!;
  if ((w === 'switch' || w === 'switches') && !saysWithin(toks, i, 4, TO) && saysWithin(toks, i, 4, ON_OFF)) return true;
  // The present only: "the demo was cut", "was cancelled after the outage" tell what happened once.
  const present = IS_NOW.has(toks[i - 1] ?? '');
  if (w === 'cut' && present && !saysWithin(toks, i, 7, CUT_TO)) return true;
  return present && CONDITIONS.has(toks[i + 1] ?? '');
}

const TO = new Set(['to']);
const ON_OFF = new Set(['on', 'off']);
const CUT_TO = new Set(['to', 'by', 'back']);

/** Whether one of `words` is among the `n` words after `i`: asked of every word, so it builds nothing. */
function saysWithin(toks: readonly string[], i: number, n: number, words: ReadonlySet<string>): boolean {
  for (let j = i + 1; j <= i + n && j < toks.length; j += 1) if (words.has(toks[j]!)) return true;
  return false;
}

/** A word of a change: one of the forms listed, or any inflection of a verb of change. */
function changeWord(w: string): boolean {
  return CHANGE_WORDS.has(w) || CHANGE_VERBS.has(dropE(stem(w))) || (w.endsWith('ment') && CHANGE_VERBS.has(dropE(stem(w.slice(0, -4)))));
}

// Two-word phrases of change: "went up to", "roll forward", "these days", "no longer", "from now on";
// software moved onto another tool: "the suite has been ported to".
const CHANGE_PAIRS = new Set(['go up', 'goes up', 'going up', 'went up', 'gone up', 'go down', 'goes down', 'going down', 'went down', 'roll forward', 'rolled forward', 'roll back', 'rolled back', 'these days', 'no longer', 'no more', 'from now', 'going forward', 'as of', 'effective from', 'effective immediately', 'starting today', 'starting tomorrow', 'starting next', 'back to', 'took over', 'taken over', 'handed over', 'pulled forward', 'pulled in', 'brought forward', 'used to', 'any more', 'going with', 'went with', 'settled on', 'replaced by', 'replaced with', 'ported to', 'voted in']);
// "The new policy", "New guideline:", "under the new plan": a new rule replaces an old one.
const RULE_NOUNS = new Set(['policy', 'rule', 'rules', 'guideline', 'guidelines', 'plan', 'process', 'standard', 'default', 'defaults', 'target', 'limit', 'schedule', 'setup', 'contract', 'terms', 'agreement', 'pricing', 'floor', 'ceiling', 'baseline', 'price', 'rate', 'timetable', 'rota', 'roster']);
// A statement about what will be ("will be upgraded to") is a plan, a fact apart from what is.
const PLAN_WORDS = new Set(['will', 'shall', "'ll", 'planned', 'plans']);
// The future tense alone: with a cue that says when it takes effect ("will send at {time} from now
// on", the cue cut from the template), a statement of the rule in force from then on (`shapeOf`).
const FUTURE_WORDS = new Set(['will', 'shall', "'ll"]);
// An intention before a verb ("aims to cut", "plans to move", "intends to drop") is a goal or a
// plan, whatever the verb: nothing has changed yet.
const INTENDS = new Set(['plan', 'plans', 'planning', 'intend', 'intends', 'intending', 'hope', 'hopes', 'hoping', 'propose', 'proposes', 'proposed', 'proposing']);
// A wish is a plan only when what is wished is a change ("wants to replace", "would like to move"):
// "wants to be paged on Slack" is a preference in force.
// An aim is told the same way: "aims to cut churn by" plans a change, "we aim to reply within"
// states a target in force.
const WISHES = new Set(['want', 'wants', 'wanted', 'like', 'aim', 'aims', 'aiming']);
// "Switched off", "turned off", "shut off": what was on no longer is, the negation of a statement
// that it is on ("lets people sign in with {quoted}").
const OFF_VERBS = new Set(['switch', 'switched', 'switching', 'turn', 'turned', 'turning', 'shut', 'shutting']);
// After the value of a change, a clause that gives its reason or circumstance ("to suit APAC",
// "since the EU hire", "after the reorg", "by the window") is not part of the fact.
const CLAUSE_START = new Set(['since', 'because', 'after', 'to', 'so', 'for', 'under', 'following', 'due', 'once', 'and', 'but', 'by', 'until', 'when', 'which']);
// "per month", "a month", "every month" say what "monthly" says.
const PERIOD_OF = new Map([
  ['hour', 'hourly'],
  ['day', 'daily'],
  ['night', 'nightly'],
  ['week', 'weekly'],
  ['month', 'monthly'],
  ['year', 'yearly'],
  ['annual', 'yearly'],
  ['annually', 'yearly'],
]);
const PER = new Set(['per', 'a', 'an', 'each', 'every']);
// "at least" and "at most" name the end of a range the way "minimum" and "maximum" do.
const RANGE_PHRASES = new Map([
  ['at least', 'minimum'],
  ['at most', 'limit'],
  ['up to', 'limit'],
]);

// A ban is the negation of a permission: "Deploys on {weekday} are fine" / "… have been banned".
const PROHIBIT = new Set(['ban', 'bans', 'banned', 'forbid', 'forbids', 'forbidden', 'prohibit', 'prohibits', 'prohibited', 'disallow', 'disallows', 'disallowed']);
// A refusal is the negation of acceptance: "accepts tokens signed with {quoted}" / "… are rejected".
const REJECT = new Set(['reject', 'rejects', 'rejected', 'rejecting', 'refuse', 'refuses', 'refused', 'refusing']);
// "Is back from leave on {date}", "the flight back from the offsite": the return, a fact apart from
// the leaving ("moved back to", "comes back every" are how a change or a cycle is told).
const BACK_AT = new Set(['from', 'in', 'at', 'on']);
// "is fine", "are ok": a permission, said after a form of "to be".
const FINE = new Set(['fine', 'ok', 'okay', 'acceptable']);
const TO_BE = new Set(['is', 'are', 'was', 'were', 'be', 's']);
// "Raises a warning", "increases an alert's severity": a change verb before an article acts on a
// thing, it does not set the fact's value.
const ARTICLES = new Set(['a', 'an']);

/**
 * "Has gone over to {quoted} mode", "we've gone to {percent} rental", "went to {quantity}": switched
 * to it ("go over the plan" reviews it; "goes to {host}" is where a thing goes each time).
 */
function goneOverTo(toks: readonly string[], i: number): boolean {
  const w = toks[i]!;
  if ((w === 'gone' || w === 'went') && toks[i + 1] === 'to') return true;
  return GO.has(w) && toks[i + 1] === 'over' && toks[i + 2] === 'to';
}

// What a release is called when it is done: "shipped {version} to both app stores".
const SHIPPED = new Set(['shipped', 'released', 'deployed', 'launched', 'published']);

// Who says they shipped it: "we shipped", "we've just released".
const SHIPPERS = new Set(['we', 'i', 'they', 'just', 'finally', 'have', 'has', 've']);

/**
 * "Shipped loyalty app {version} to the stores", "we've released {version}": a version put out,
 * told as done at the head of a line or by who did it — a change of the version in use ("Ranker
 * model deployed: {version}" names what runs).
 */
function shippedVersion(toks: readonly string[], i: number): boolean {
  return SHIPPED.has(toks[i]!) && (i === 0 || SHIPPERS.has(toks[i - 1]!)) && saysWithin(toks, i, 4, VERSION);
}

const VERSION = new Set(['{version}']);

/** "Point the tide feed at {host}", a line that opens with the order: the thing moved there. */
function pointsAt(toks: readonly string[], i: number): boolean {
  if (i !== 0 || (toks[0] !== 'point' && toks[0] !== 'repoint')) return false;
  for (let j = 2; j + 1 < toks.length; j += 1) if ((toks[j] === 'at' || toks[j] === 'to') && toks[j + 1]!.startsWith('{')) return true;
  return false;
}

/**
 * "Production was patched up to {version}", "hotfixed to": a version a thing was taken to. "Gets
 * patched on {weekday}" is what is done each week.
 */
function patchedTo(toks: readonly string[], i: number): boolean {
  const w = toks[i];
  return (w === 'patched' || w === 'hotfixed') && (toks[i + 1] === 'to' || (toks[i + 1] === 'up' && toks[i + 2] === 'to'));
}

// When a change happened, as a pair of words and the word after them ('' for none): "over the weekend", "last night".
const EVENT_TIMES = new Map([
  ['over the', 'weekend'],
  ['last night', ''],
  ['this morning', ''],
  ['earlier today', ''],
]);
const AT_TIME = new Set(['at', 'from', 'by', 'until', 'around']);
const TERMS = new Set(['term', 'week', 'month', 'quarter', 'year', 'season', 'semester', 'sprint', 'cycle']);
const STARTS_WHEN = new Set(['this', 'with', 'in', 'on', 'from']);
// Cues in a statement's own words that say when its rule takes effect: with them the future tense
// ("will close at {time} going forward") states the rule in force from then on, not a plan.
const WHEN_PAIRS = new Set(['going forward', 'from now', 'as of', 'effective from', 'effective immediately', 'starting today', 'starting tomorrow', 'starting next']);
// "This PR takes exposure to {percent}", "brings the pool to {quantity}": a thing taken to a value.
// "Drop the idle timeout to {quantity}": a thing lowered to a value ("drop below" is a condition).
const TAKES = new Set(['take', 'takes', 'took', 'taking', 'bring', 'brings', 'brought', 'bringing', 'drop', 'dropping']);
// "After the floor refit, …", "Following the RFP round, …": the state an event left behind.
const AFTER_EVENT = new Set(['after', 'following']);
const DETERMINERS = new Set(['the', 'our', 'their', 'this', 'that', 'last', 'a', 'an', 'its', 'his', 'her']);
const POST_EVENTS = new Set(['cutover', 'migration', 'upgrade', 'move', 'reorg', 'switchover', 'merger', 'launch', 'rollout', 'refit']);
const MODALS = new Set(['must', 'should', 'shall', 'will', "'ll", 'can', 'may', 'need', 'needs']);
const FALL = new Set(['fall', 'falls', 'fell', 'falling', 'fallen']);
// A change named as a noun: "after the pricing change", "following the policy update". ("Delete
// the branch after the migration" is an instruction with a time, not a fact changed.)
const EVENTS = new Set(['change', 'changes', 'update', 'updates', 'adjustment', 'adjustments', 'revision', 'reorg', 'renegotiation']);
const COMMIT_NOUNS = new Set(['pr', 'commit', 'patch', 'mr', 'diff']);
const SLATED = new Set(['scheduled', 'slated', 'due']);
const EXPECTS = new Set(['should', 'expected']);
const GO = new Set(['go', 'goes', 'going', 'went', 'gone']);
// "Has unsubscribed from the {quoted} email", "opted out of": no longer wanted.
const OPTED_OUT = new Set(['unsubscribed', 'unsubscribes', 'unsubscribe', 'unsubscribing']);

// "Stop running", "quit sending", "ceased offering".
const STOP_WORDS = new Set(['stop', 'stopped', 'quit', 'cease', 'ceased']);

/**
 * The words of a statement made of "re" and another of its words ("We repartitioned events to 12
 * partitions", "re-sharded … shards"): done again, with a new value.
 */
function redoneWordsOf(toks: readonly string[]): Set<string> {
  // Each token's base once, so a statement of many "re…ed" words is not rescanned for each.
  const byBase = new Map<string, Set<string>>();
  for (const t of toks) {
    const base = dropE(stem(t));
    const list = byBase.get(base);
    if (list) list.add(t);
    else byBase.set(base, new Set([t]));
  }
  const out = new Set<string>();
  for (const w of toks) {
    const m = /^re(\p{L}{4,})ed$/u.exec(w);
    if (!m) continue;
    const others = byBase.get(dropE(stem(m[1]!)));
    if (others && (others.size > 1 || !others.has(w))) out.add(w);
  }
  return out;
}

/** The words of a text, lower-case: hyphenated words split ("prod-eu"), contractions cut ("there's"). */
function tokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[^\p{L}\p{N}'{}-]+/u)) {
    let w = raw.replace(/^['-]+|['-]+$/g, '');
    if (!w) continue;
    if (/^\{[a-z]+\}$/.test(w)) {
      out.push(w);
      continue;
    }
    w = w.replace(/[{}]/g, '');
    if (NEGATION.has(w) || w.endsWith("n't")) {
      out.push(w);
      continue;
    }
    // "there's", "we've", "I'm", "she'd": the pronoun is the word; "'ll" says a plan.
    const contraction = /^(.+)'(s|re|ve|m|d|ll)$/.exec(w);
    if (contraction) {
      out.push(...contraction[1]!.split('-').filter(Boolean));
      if (contraction[2] === 'll') out.push("'ll");
      continue;
    }
    out.push(...w.split('-').filter((p) => p.length > 0 && p !== 're'));
  }
  return out;
}

/**
 * A template up to its last clause holding a value: a clause after a semicolon that holds none
 * is a statement of its own ("Enforces a minimum of {money}; smaller balances roll over"), while
 * one before the value says what it is about ("Staging moved; use {host}").
 */
function valueClauses(text: string): string {
  if (!text.includes(';')) return text;
  const clauses = text.split(';');
  let last = clauses.length - 1;
  while (last > 0 && !/\{[a-z]+\}/.test(clauses[last]!)) last -= 1;
  return /\{[a-z]+\}/.test(clauses[last]!) ? clauses.slice(0, last + 1).join(';') : text;
}

/**
 * Lower-case words of a predicate template, `{slot}` placeholders and snake_case split out, with
 * whether it negates (`negated`) and whether it is told as a change (`change`).
 */
export function predicateWords(text: string): { words: Set<string>; slots: string[]; negated: boolean; change: boolean; plan: boolean; future: boolean; slips: boolean; again: Set<string>; seq: string[]; route: [string, string] | null } {
  const slots = [...text.matchAll(/\{([a-z]+)\}/g)].map((m) => m[1]!).sort(compareStrings);
  // "us" in lower case is the pronoun; "US" is the region.
  const lower = (t: string) => t.normalize('NFKC').replace(/\bus\b/g, 'we').toLowerCase().replace(/[_/]+/g, ' ');
  const clauses = valueClauses(text);
  const bare = lower(clauses);
  // A clause after a comma that follows the value ("moved our screeners to {host}, old links will
  // redirect for a while") tells what comes of the fact, not the fact: its future tense is no plan,
  // and after a change its words are none of the fact's. A comma parts words, so the statement is
  // tokenized once, in the two pieces, and the aside starts where the first piece ends.
  const valueAt = bare.indexOf('{');
  const commaAt = valueAt === -1 ? -1 : bare.indexOf(',', valueAt);
  const head = tokens(commaAt === -1 ? bare : bare.slice(0, commaAt));
  const asideFrom = head.length;
  const toks = commaAt === -1 ? head : head.concat(tokens(bare.slice(commaAt)));
  const words = new Set<string>();
  let negated = false;
  // "re-scheduled", "re-assigned": done again, differently.
  let change = /(?:^|[^\p{L}])re-\p{L}+ed\b/u.test(bare);
  let plan = false;
  // A schedule moved ("stretched to", "slipped to", "pushed back to"): a change of what was planned.
  let slips = false;
  // A plan told by more than the future tense: an intention, "planned", "going to".
  let intended = false;
  // "Going forward", "starting next week": the statement says when its rule takes effect.
  let when = false;
  // "Roll the worker forward to", "rolled the flag back to": a roll before the last forward or back.
  let lastDirection = -1;
  // Where the last "after the …" / "once the …" is, so a word before it knows in one lookup
  // (a statement is as long as the door allows: nothing here rescans it per word).
  let lastAfterEvent = -1;
  toks.forEach((t, j) => {
    if ((t === 'after' || t === 'once') && DETERMINERS.has(toks[j + 1] ?? '')) lastAfterEvent = j;
  });
  const redoneWords = redoneWordsOf(toks);
  toks.forEach((t, i) => {
    if (t === 'forward' || t === 'back') lastDirection = i;
  });
  for (let i = 0; i < toks.length; i += 1) {
    const w = toks[i]!;
    const pair = `${w} ${toks[i + 1] ?? ''}`;
    // "Going to a store release every {quantity}" moves to something; "going to upgrade" plans.
    const movesTo = pair === 'going to' && ['a', 'an', 'the'].includes(toks[i + 2] ?? '');
    const after = toks[i + 2] ?? '';
    const intends = toks[i + 1] === 'to' && (INTENDS.has(w) || (WISHES.has(w) && (changeWord(after) || after === 'replace')));
    // "Scheduled to move to", "due to switch": a plan; "due to the freeze" is a reason.
    const slated = SLATED.has(w) && toks[i + 1] === 'to' && !after.startsWith('{') && !DETERMINERS.has(after) && after !== '';
    const inFact = i < asideFrom;
    if (inFact && ((PLAN_WORDS.has(w) && !FUTURE_WORDS.has(w)) || (pair === 'going to' && !movesTo) || pair === 'about to' || intends || slated)) plan = intended = true;
    // "Should take {quantity} after the parallelization work lands": what is expected once an event
    // comes, a plan, not what is ("should be reviewed after {quantity}" is a rule).
    else if (inFact && EXPECTS.has(w) && lastAfterEvent > i) plan = intended = true;
    // "You'll find him in {quoted}": how a present fact is told to the reader, not a plan.
    else if (inFact && FUTURE_WORDS.has(w) && toks[i - 1] !== 'you') plan = true;
    if (movesTo) change = true;
    if (RESCHEDULED.has(w)) slips = true;
    // "The new policy", "New payment terms": a rule noun right after "new" or one word on.
    const newRule = w === 'new' && (RULE_NOUNS.has(toks[i + 1] ?? '') || RULE_NOUNS.has(toks[i + 2] ?? ''));
    // "From the next billing cycle": when a new value takes effect.
    const fromNext = w === 'from' && (toks[i + 1] === 'next' || (toks[i + 1] === 'the' && toks[i + 2] === 'next'));
    // "Falls back to {quoted} when …" is what happens each time, not a change back.
    const fallsBack = pair === 'back to' && FALL.has(toks[i - 1] ?? '');
    if ((changeAt(toks, i) && !fallsBack) || newRule || fromNext) change = true;
    // "Update from Solveig: …", "Update: …": news of a change; "Done per radiology's request: …":
    // a change reported made.
    if (i === 0 && (w === 'update' || w === 'updates' || w === 'done')) change = true;
    // "Starting this term, …", "Starting with the fall schedule, …", "Beginning in March, …": when
    // a new value takes effect, at the head of the line ("names starting with" is no change).
    if (i === 0 && (w === 'starting' || w === 'beginning') && STARTS_WHEN.has(toks[1] ?? '')) change = true;
    // "With the winter timetable, …", "Under the new rota, …": the rule a value holds under, at the head of a line.
    if (i === 0 && (w === 'with' || w === 'under') && toks[1] === 'the' && (RULE_NOUNS.has(toks[2] ?? '') || RULE_NOUNS.has(toks[3] ?? ''))) change = true;
    if (patchedTo(toks, i) || pointsAt(toks, i) || goneOverTo(toks, i) || shippedVersion(toks, i)) change = true;
    // "Being upgraded to take {quantity} next spring": what will be by a time to come.
    if (inFact && w === 'next' && SEASONS.has(toks[i + 1] ?? '') && !toks.slice(Math.max(0, i - 2), i).some((t) => t === 'from' || t === 'starting')) plan = intended = true;
    // "The plan is to roll branches onto {version}": a plan told as one.
    if (inFact && w === 'plan' && TO_BE.has(toks[i + 1] ?? '') && toks[i + 2] === 'to') plan = intended = true;
    // "We're now planning {quantity} of sea trials": the plan is that value.
    if (inFact && (w === 'planning' || w === 'planned') && (toks[i + 1] ?? '').startsWith('{')) plan = intended = true;
    // "Probation will be {quantity} from this intake on", "from next season onwards": when the new
    // value holds from, however the period is named.
    if (w === 'from' && (toks[i + 1] === 'this' || toks[i + 1] === 'next') && toks.slice(i + 2, i + 5).some((t) => t === 'on' || t === 'onward' || t === 'onwards')) when = change = true;
    // "The committee agreed {quantity} will be the cap": a decision, the rule from then on.
    if (w === 'agreed' || w === 'decided') when = true;
    // "Give six hours weekly from this term": when the new value holds from.
    if (pair === 'from this' && TERMS.has(toks[i + 2] ?? '')) change = true;
    // "Appointment-only from here on": "from now on" in other words.
    if (pair === 'from here' && (toks[i + 2] === 'on' || toks[i + 2] === 'out')) change = true;
    // "After the RFP round, the shortlist is down to …" at the start, or after the event of a
    // change anywhere ("… monthly after the pricing change"): the state an event left behind.
    if (AFTER_EVENT.has(w) && DETERMINERS.has(toks[i + 1] ?? '') && (i === 0 || toks.slice(i + 2, i + 5).some((t) => EVENTS.has(t)))) change = true;
    // "Post-cutover the kiosk app talks to {host}", "post-migration".
    if (w === 'post' && POST_EVENTS.has(toks[i + 1] ?? '')) change = true;
    // "This PR makes … {quantity} by default": a commit saying what it does.
    if (COMMIT_NOUNS.has(toks[i - 1] ?? '') && /[^s]s$/.test(w) && i <= 2) change = true;
    // "Small change, I'm returning …", "Change of plans: …".
    if (w === 'change' && (i <= 1 || toks[i + 1] === 'of')) change = true;
    if ((w === 'roll' || w === 'rolled') && i < lastDirection) change = true;
    if (redoneWords.has(w)) change = true;
    // "He'll sit in a meeting {quantity} at most now": the future with "now" (not "now that") is the rule from now on.
    if (WHEN_PAIRS.has(pair) || w === 'henceforth' || (w === 'now' && toks[i + 1] !== 'that')) when = true;
    // "The shortlist is down to {quantity}"; "autoscales down to a minimum of" is a range.
    if (pair === 'down to' && (TO_BE.has(toks[i - 1] ?? '') || toks[i - 1] === 'now')) change = true;
    // "{quantity} is the new floor", "Thursday is the new deploy day".
    if (TO_BE.has(w) && toks[i + 1] === 'the' && toks[i + 2] === 'new') change = true;
    // "Takes exposure to {percent}", "brings the pool to {quantity}": the value a thing was taken to.
    // "Take up to {quantity}" is a bound: something must stand between the verb and "to".
    if (TAKES.has(w)) for (let j = i + 2; j <= i + 5 && j + 1 < toks.length; j += 1) if (toks[j] === 'to' && toks[j - 1] !== 'up' && toks[j + 1]!.startsWith('{')) change = true;
  }
  // A clause after the value's own is no word of the fact, but it may tell that the fact changed:
  // "Please direct office requests to {quoted}; he's taken over from Kadri".
  if (!change && clauses.length < text.length) {
    const rest = tokens(lower(text.slice(clauses.length)));
    // "…; everything must be done or rolled back by then" instructs; it tells no change.
    change = !rest.some((w) => MODALS.has(w)) && rest.some((_, i) => changeAt(rest, i));
  }
  // The future tense with a cue of when ("will close at {time} going forward") states the rule in
  // force from then on, as it does with the cue cut from the template.
  if (plan && !intended && when) {
    plan = false;
    change = true;
  }
  // A verb of change with the future tense ("will be upgraded to") is a plan whatever cue matched
  // it; a cue is what told the future tense alone as a change, as it was cut from the template.
  const future = plan && !intended && !change;
  change &&= !plan;
  let afterSlot = false;
  const again = new Set<string>();
  // A change told with a comma after its value ("doesn't run on {weekday} anymore, finance didn't
  // need it"): what follows is an aside or a reason, and its negations are none of the fact's.
  const factEnd = change ? asideFrom : toks.length;
  let end = toks.length;
  for (let i = 0; i < toks.length; i += 1) {
    const w = toks[i]!;
    if (w.startsWith('{')) {
      afterSlot = true;
      continue;
    }
    if (change && afterSlot && (CLAUSE_START.has(w) || i >= factEnd)) {
      end = i;
      break;
    }
    // "No more than {quantity}", "no bigger than": a bound, as "at most" is, neither a negation nor a change.
    if (w === 'no' && (toks[i + 1] === 'more' || toks[i + 1] === 'fewer' || THRESHOLD_SIDE.get(toks[i + 1] ?? '') === 'above') && toks[i + 2] === 'than') {
      words.add('limit');
      i += 2;
      continue;
    }
    // "Goes live", "the go-live": a launch. "Tops out at": a limit.
    if (w === 'live' && GO.has(toks[i - 1] ?? '')) {
      words.add('launch');
      continue;
    }
    if (/^tops?$|^topped$/.test(w) && toks[i + 1] === 'out') {
      words.add('limit');
      i += 1;
      continue;
    }
    // "Patched over the weekend", "moved last night": when it happened, no word of the fact.
    const at = EVENT_TIMES.get(`${w} ${toks[i + 1] ?? ''}`);
    if (at !== undefined && (at === '' || toks[i + 2] === at)) {
      i += at === '' ? 1 : 2;
      continue;
    }
    if (patchedTo(toks, i) || pointsAt(toks, i) || goneOverTo(toks, i)) continue;
    // "Hear back inside {quantity}": within it.
    if (w === 'inside' && (toks[i + 1] ?? '').startsWith('{')) continue;
    if (w === 'time' && toks[i + 1] === 'off') {
      words.add('leave');
      i += 1;
      continue;
    }
    if (REJECT.has(w)) {
      negated = !negated;
      words.add('accept');
      continue;
    }
    if (w === 'back' && (BACK_AT.has(toks[i + 1] ?? '') || TO_BE.has(toks[i - 1] ?? ''))) {
      words.add('back');
      continue;
    }
    // "up to" after "went", "is going" or "was patched" is a change, not a bound.
    const range = GO.has(toks[i - 1] ?? '') || patchedTo(toks, i - 1) ? undefined : RANGE_PHRASES.get(`${w} ${toks[i + 1] ?? ''}`);
    if (range) {
      words.add(range);
      i += 1;
      continue;
    }
    const period = PERIOD_OF.get(w);
    if (period && (w.startsWith('annual') || PER.has(toks[i - 1] ?? ''))) {
      words.add(period);
      continue;
    }
    // "Stop running the full suite": the negation of running it, not a word of the fact.
    const stops = STOP_WORDS.has(w) && (toks[i + 1] ?? '').endsWith('ing');
    if (PROHIBIT.has(w)) {
      negated = !negated;
      words.add('allow');
      continue;
    }
    // "Personal phones may join …", "Hotfixes can go out on {weekday}": a permission, which a
    // ban ("has banned … from") negates.
    if ((w === 'may' || w === 'can') && toks[i + 1] !== 'be' && !NEGATION.has(toks[i + 1] ?? '') && i > 0) {
      words.add('allow');
      continue;
    }
    if (FINE.has(w) && TO_BE.has(toks[i - 1] ?? '')) {
      words.add('allow');
      continue;
    }
    if (OPTED_OUT.has(w) || ((w === 'opted' || w === 'opts') && toks[i + 1] === 'out')) {
      negated = !negated;
      if (!OPTED_OUT.has(w)) i += 1;
      continue;
    }
    // "Fans switch on at {time}" / "… switch off at {time}": when each happens, two facts, no negation.
    if (OFF_VERBS.has(w) && (toks[i + 1] === 'on' || toks[i + 1] === 'off') && AT_TIME.has(toks[i + 2] ?? '') && (toks[i + 3] ?? '').startsWith('{')) {
      words.add(`switch-${toks[i + 1]}`);
      i += 1;
      continue;
    }
    if (OFF_VERBS.has(w) && toks[i + 1] === 'off') {
      negated = !negated;
      i += 1;
      continue;
    }
    // "Turned inline-replies off": the particle after a short object, before any value.
    if (OFF_VERBS.has(w) && toks.slice(i + 2, i + 4).includes('off') && !toks.slice(i + 1, i + 4).some((t) => t.startsWith('{'))) {
      negated = !negated;
      continue;
    }
    if (NEGATION.has(w) || w.endsWith("n't") || stops) {
      // "No longer allowed alone with a child, not even for {quantity}": "not even" presses the
      // negation already said; it does not undo it.
      if (w === 'not' && toks[i + 1] === 'even' && negated) {
        i += 1;
        continue;
      }
      negated = !negated;
      // "no longer", "no more": the negation of a change, not a word of the fact.
      if (w === 'no' && (toks[i + 1] === 'longer' || toks[i + 1] === 'more')) i += 1;
      continue;
    }
    // "Rejects recordings longer than {quantity}" / "… shorter than {quantity}": the two sides of a
    // threshold, as above and below are.
    const side = toks[i + 1] === 'than' ? THRESHOLD_SIDE.get(w) : undefined;
    if (side) {
      words.add(side);
      i += 1;
      continue;
    }
    // How a change is told is no word of the fact ("rebooked", "adjusted", "cancelled").
    if (FILLER.has(w) || changeWord(w) || w === "'ll" || redoneWords.has(w)) continue;
    words.add(canonicalWord(w));
    // "Relicensed", "rebranded": a verb of five letters or more done again, in the past, that the other side may say plainly.
    if (/^re\p{L}{5,}ed$/u.test(w)) again.add(canonicalWord(w));
  }
  const seq: string[] = [];
  for (let i = 0; i < end; i += 1) {
    const w = toks[i]!;
    const c = w.startsWith('{') ? w : canonicalWord(w);
    seq.push(words.has(c) ? c : w);
  }
  return { words, slots, negated, change, plan, future, slips: slips && change, again, seq, route: routeOf(seq, words) };
}

// Cues of class change ("from now on", "effective Monday") or correction ("Correction:", "actually,")
// are taken out of a statement's wording before its predicate is made.
const CHANGE_CUES = new Set(CUES.filter((c) => c.class === 'change' || c.class === 'correction').map((c) => c.name));

/**
 * Whether any of a memory's claims was told as a change or a correction by a cue: such a
 * statement restates an earlier fact with a new value, and is compared as one (`scoreShapes`).
 * A function of the set of claims, so a rebuild and any order of compiles agree.
 */
export function toldAsChange(claims: Iterable<Pick<Claim, 'cues'>>): boolean {
  for (const c of claims) if (c.cues.some((name) => CHANGE_CUES.has(name))) return true;
  return false;
}

/** `subjects` caches the words of each subject's name over one search. */
export function shapeOf(input: CandidateInput, subjects: Map<string, ReadonlySet<string>> = new Map()): PredicateShape {
  const fk = input.fact_key;
  const isNote = fk.predicate === NOTE_PREDICATE;
  const worded = predicateWords(isNote ? (input.note_text ?? '') : fk.predicate);
  const { words, slots, negated, again, seq, route, slips } = worded;
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
  return { slots: isNote ? 'note' : slots.map((s) => `{${s}}`).join(' '), words: own, negated, change, plan, slips, named, again, grams: trigramsOf(own), seq, route, qualifiers, scope: `${fk.scope}\u0000${fk.owner ?? ''}` };
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
 * {version}" / "Ranker model deployed: {version}"), and whether one names which of parallel facts
 * it is.
 */
function onlyCounts(x: PredicateShape, y: PredicateShape): { heavy: number; qualified: boolean } {
  let heavy = 0;
  let qualified = false;
  for (const w of x.words) {
    if (y.words.has(w) || x.named.has(w) || y.named.has(w)) continue;
    if (!LIGHT.has(w)) heavy += 1;
    if (QUALIFYING.has(w)) qualified = true;
  }
  return { heavy, qualified };
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

export function scoreShapes(a: PredicateShape, b: PredicateShape): { score: number; reason: string; opposite?: true; loose?: true } | null {
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
  let sharesContent = false;
  let sharedFacts = 0;
  for (const w of x.words) {
    if (!y.words.has(w) || COMMON.has(w)) continue;
    sharesContent = true;
    if (!x.named.has(w) && !y.named.has(w)) sharedFacts += 1;
  }
  const change = x.change || y.change;
  // A word naming which of parallel facts it is ("EU", "staging", "least") on one side only.
  // A change may drop or add one ("Outbound mail goes through {host}" / "We switched the mail
  // relay to {host}"); a qualifier on each side is still two facts ("staging" / "production").
  if (ox.qualified && oy.qualified) return null;
  if (frameSwap(x, y) || reversed(x, y)) return null;
  const strict = !ox.qualified && !oy.qualified && strictlyNear(ox.heavy, oy.heavy, shared, sharedFacts, Math.min(x.words.size, y.words.size));
  // A statement told as a change ("Raised the orders db pool to {quantity}") restates an earlier
  // fact in the words of the change, which rarely repeat the words of the fact; a content word
  // in common and no qualifier on one side only is enough to show the two — but only as a
  // `loose` pair, which `findCandidates` keeps for a change that has no nearer fact to restate —
  // never for two parallel changes.
  if (!strict && !(change && sharesContent && !parallelChanges(x, y, ox, oy))) return null;
  const onlyX = onlyIn(x, y);
  const onlyY = onlyIn(y, x);
  const wordDice = (2 * shared) / (x.words.size + y.words.size);
  const gramDice = (2 * overlap(x.grams, y.grams)) / (x.grams.size + y.grams.size);
  const score = Math.round(Math.max((wordDice + gramDice) / 2, SHARED_FLOOR) * 100) / 100;
  const sharedWords = [...x.words].filter((w) => y.words.has(w)).sort(compareStrings);
  onlyX.sort(compareStrings);
  onlyY.sort(compareStrings);
  const parts = [x.slots ? `same slots ${x.slots}` : 'no slots', `shared: ${sharedWords.join(', ')}`];
  // ASCII on purpose: one character outside Latin-1 makes V8 hold a whole page of recall as a
  // two-byte string, which doubles what serializing and sending it costs.
  if (onlyX.length + onlyY.length > 0) parts.push(`differs: ${onlyX.join(' ') || '(none)'} / ${onlyY.join(' ') || '(none)'}`);
  if (change) parts.push('told as a change');
  if (x.negated !== y.negated) parts.push('one side negated');
  return { score, reason: parts.join('; '), ...(x.negated !== y.negated ? { opposite: true as const } : {}), ...(strict ? {} : { loose: true as const }) };
}

/**
 * The first word of the fact after "from" and after the next "to" ("from the isle back to the
 * mainland": isle, mainland), or null without both.
 */
function routeOf(seq: readonly string[], words: ReadonlySet<string>): [string, string] | null {
  const after = (i: number) => {
    for (let j = i + 1; j < seq.length; j += 1) if (words.has(seq[j]!)) return j;
    return -1;
  };
  const from = seq.indexOf('from');
  if (from === -1) return null;
  const a = after(from);
  const to = a === -1 ? -1 : seq.indexOf('to', a);
  const b = to === -1 ? -1 : after(to);
  return b === -1 ? null : [seq[a]!, seq[b]!];
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
  const shorter = Math.min(a.length, b.length);
  let head = 0;
  while (head < shorter && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < shorter - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
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
function strictlyNear(onlyXCount: number, onlyYCount: number, shared: number, sharedFacts: number, shorter: number): boolean {
  const substitutions = Math.min(onlyXCount, onlyYCount);
  // Two statements that share most of their words and swap one or two (staging for production,
  // reader for writer) are the shape of two facts told apart by a qualifier; a rewording shares
  // fewer words and differs in how it is said.
  if (substitutions >= 1 && Math.max(onlyXCount, onlyYCount) <= (shared >= 2 ? 2 : 1)) return false;
  // Each side naming two or more things the other does not, around less than half of the
  // shorter one in common: two facts that share a word or two ("web", "deploy").
  if (substitutions >= 2 && shared / shorter < 0.5) return false;
  // With something swapped on each side, one word in common ("long", "pin", "offsite") is a
  // coincidence of wording; a word naming the subject or a common verb is none at all.
  if (substitutions >= 1 && sharedFacts < 2) return false;
  return true;
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
 * (whether two memories are a sole restatement depends on their block's size), then by every
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
  // memories are each other's only fact of their kind (`soleRestatement`) changes with its size,
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
  if ((ox.qualified && oy.qualified) || reversed(x, y)) return null;
  const parts = [`same slots ${x.slots}`, 'the only two facts with them here', 'told as a change'];
  if (x.negated !== y.negated) parts.push('one side negated');
  return { score: SHARED_FLOOR, reason: parts.join('; '), ...(x.negated !== y.negated ? { opposite: true as const } : {}) };
}

/** `pairs` and, for each block of exactly two memories that are not already a pair, their sole restatement. */
function withSole(pairs: CandidatePair[], byId: ReadonlyMap<string, PredicateShape>, blocks: readonly Block[], threshold: number): CandidatePair[] {
  if (threshold > SHARED_FLOOR) return pairs;
  const paired = new Set(pairs.map((p) => `${p.a}\u0000${p.b}`));
  const out = [...pairs];
  for (const { ids } of blocks) {
    if (ids.length !== 2) continue;
    const [a, b] = ids as [string, string];
    if (paired.has(`${a}\u0000${b}`)) continue;
    const sole = soleRestatement(byId.get(a)!, byId.get(b)!);
    if (sole) out.push({ a, b, ...sole });
  }
  return out.length === pairs.length ? pairs : out.sort((p, q) => compareStrings(p.a, q.a) || compareStrings(p.b, q.b));
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
