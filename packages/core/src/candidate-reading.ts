import { compareStrings } from './normalize.js';
import { canonicalWord, dropE, FILLER, NEGATION, stem } from './candidate-words.js';

/**
 * How one statement is read for candidates: its content words, its slots, and whether it is told
 * as a change, a plan or a negation (`predicateWords`). A pure function of the wording; whether two
 * statements are one fact is `candidates`' question.
 */

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
export function predicateWords(text: string): { words: Set<string>; slots: string[]; negated: boolean; change: boolean; plan: boolean; future: boolean; slips: boolean; again: Set<string>; seq: string[]; route: [string, string] | null; said: Map<string, string> } {
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
  // Each word of the fact as first said ("runbook" for doc, "alice" for alic): what a reason shows.
  const said = new Map<string, string>();
  for (let i = 0; i < end; i += 1) {
    const w = toks[i]!;
    const c = w.startsWith('{') ? w : canonicalWord(w);
    if (words.has(c)) {
      seq.push(c);
      if (!said.has(c)) said.set(c, w);
    } else seq.push(w);
  }
  return { words, slots, negated, change, plan, future, slips: slips && change, again, seq, route: routeOf(seq, words), said };
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
