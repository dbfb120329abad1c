/**
 * The words candidates are read with (design §1, law 3): words of no fact, synonyms, words that
 * qualify which of parallel facts a statement is, negations, and the stemmer that makes one word of
 * a word's forms. Data and the few functions over it, no rule: the rules are in `candidate-reading`
 * (what a statement says) and `candidates` (whether two statements may be one fact).
 */

// Words that carry no identity of a fact: articles, auxiliaries, pronouns, frequency and time
// adverbs. "We deploy staging every {weekday}" and "The staging deploy runs on {weekday}" differ
// only in these and in the verb.
export const FILLER = new Set(
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
  // What comes in: "new arrivals", "incoming animals" (still a side against "outgoing": `QUALIFIER_AXIS`).
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
  // A later list, from general usage as well: expiry, limits, migrations, failures, sign-ups, care,
  // household and workplace words. A word that a group of a common verb above would take ("publish"
  // as "deploy") is left out, since a shared common verb counts for nothing.
  ['expire', 'valid', 'validity', 'lifetime', 'lapse', 'lapses'],
  ['limit', 'throttle', 'throttled', 'throttling'],
  ['quiet', 'silent', 'silence', 'mute', 'muted', 'dnd'],
  ['migration', 'migrate', 'migrated', 'migrating'],
  ['install', 'installation'],
  ['encryption', 'encrypt', 'encrypted'],
  ['archive', 'archival', 'archived'],
  ['failure', 'fail', 'failed', 'fails', 'failing'],
  ['rollback', 'revert', 'reverted', 'reverts'],
  ['registration', 'register', 'registered', 'enrollment', 'enrolment', 'enroll', 'enrol', 'enrolled', 'signup', 'signups'],
  ['estimate', 'quote', 'quotation'],
  ['applicant', 'candidate'],
  ['cart', 'basket'],
  ['interval', 'poll', 'polling'],
  ['physiotherapy', 'physio', 'physiotherapist'],
  ['exhibit', 'exhibition', 'habitat', 'enclosure'],
  ['sla', 'slo', 'promise', 'promised', 'commitment'],
  ['remote', 'home'],
  ['fiscal', 'financial', 'fy'],
  ['postmortem', 'rca'],
  ['report', 'newsletter', 'bulletin'],
  ['invitation', 'invite', 'invited'],
  ['reject', 'rejected', 'decline', 'declined', 'deny', 'denied'],
  ['bike', 'bicycle', 'cycling'],
  ['mfa', '2fa', 'otp'],
  ['delay', 'delayed', 'postpone', 'postponed'],
  ['engineer', 'developer', 'programmer'],
  ['vet', 'veterinarian', 'veterinary'],
  ['dentist', 'dental'],
  ['pharmacy', 'chemist', 'pharmacist'],
  ['daycare', 'nursery', 'creche', 'childcare'],
  ['grocery', 'groceries', 'supermarket'],
  ['dinner', 'supper'],
  ['birthday', 'bday'],
  ['parking', 'carpark'],
  ['inbox', 'mailbox'],
  ['spam', 'junk'],
  ['cpu', 'processor'],
  ['rotation', 'rotate', 'rotated', 'rotating'],
  ['escalation', 'escalate', 'escalated'],
  ['acknowledge', 'acknowledged', 'ack'],
  ['resolve', 'resolution', 'resolved'],
  ['attendance', 'attend', 'attending'],
  ['absence', 'absent', 'away', 'ooo'],
  ['timesheet', 'timecard'],
  ['salary', 'payday'],
  ['budget', 'stipend'],
  ['equipment', 'gear', 'hardware'],
  ['toilet', 'restroom', 'bathroom', 'washroom'],
];

const SYNONYM_OF = new Map<string, string>();
// Verbs any statement may use: sharing only these says nothing about being one fact.
export const COMMON = new Set(['run', 'keep', 'open', 'send', 'say', 'cost', 'like', 'use', 'need', 'live', 'contact', 'end', 'kick', 'meet', 'work', 'deploy']);
// Verbs that only link a thing to its value ("runs", "is", "goes", "uses", "says"), unlike
// "opens" / "closes" or "likes" / "dislikes" whose difference is the fact; and the nouns that only
// say a value is a span ("session length", "call duration").
export const LIGHT = new Set(['run', 'use', 'say', 'length', 'duration']);
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
export function dropE(word: string): string {
  return word.length > 3 && word.endsWith('e') && !word.endsWith('ee') ? word.slice(0, -1) : word;
}

/**
 * Words that name which of parallel facts a statement is about — the environment, the region, the
 * rank, the end of a range … — by the axis they name it on. Such a word on one side only makes a
 * pair loose at most ("the EU API" / "the API"). Two statements each with a qualifier of its own
 * are two facts when the qualifiers are alternatives on one axis ("staging" / "production", "first"
 * / "last", "admin" / "customer"); qualifiers on two axes ("the first reply" / "customers hear
 * back") each narrow the statement, and may narrow one fact. An axis is broad where unsure: every
 * place a thing runs or sits is one, so "staging" against "EU" still tells two facts apart.
 */
const QUALIFIER_AXES: Readonly<Record<string, string>> = {
  // Where a thing runs or sits, and which side or copy of it: an environment, a region, a
  // direction, reads or writes, a node's role, inside or outside, which tier.
  where:
    'staging stag production dev development test qa sandbox preview canary eu us apac emea uk region ' +
    'inbound outbound incoming outgoing read write reader writer primary replica secondary backup fallback ' +
    'internal external public private client server frontend backend mobile web desktop ' +
    // Where a thing sits: the front tyres and the rear ones, the north gate, indoors.
    'front rear inner outer north south east west northern southern eastern western indoor outdoor ' +
    // "Incoming" is read as "arrival" (a synonym group), which is also a kind of newcomer.
    'arrival',
  // Which of a series: the first or the last.
  order: 'first last final next previous',
  // Which end of a range: the least or the most, a floor or a ceiling.
  bound: 'minimum min maximum max least most lower upper floor ceiling',
  // Early or late.
  timing: 'early late',
  // When it recurs: weekdays or weekends, mornings or evenings, daily or weekly.
  when: 'weekday weekend morning evening daily weekly monthly yearly annual quarterly',
  level: 'warning critical error info debug',
  release: 'major minor patch',
  // How a thing is done: scheduled reports or ad-hoc exports.
  manner: 'ad hoc adhoc manual automatic automated',
  // Whether a figure is the goal or what was reached.
  aim: 'target goal actual result',
  // Whom a rule is for: admin or customer sessions, adult or junior tickets.
  whom: 'admin customer guest anonymous employee contractor adult junior senior youth',
  // "Staffed from {time}" / "staffed until {time}": the end of a span is a fact apart from its start.
  span: 'until till',
  // "Default status for new / returned samples", "price for new / existing subscribers".
  age: 'new existing returning returned old back arrival',
  // The kind of leave: "paid leave" / "sick leave".
  leave: 'sick bereavement sabbatical',
  // The stage of data: raw events / aggregated tables kept for {quantity}.
  stage: 'raw aggregated aggregate downsampled curated cleaned',
  // Which side of a threshold a rule is for: a premium above {percent}, a discount below it.
  side: 'above below premium discount surcharge switch-on switch-off',
  // "Non-production", "non-members": the other side of whatever it prefixes, on any axis.
  any: 'non',
};

/**
 * Each qualifying word (and its stems) with its axes (`QUALIFIER_AXES`): most have one; a word
 * a synonym group makes of words on two axes has both ("arrival" is "incoming" too).
 */
export const QUALIFIER_AXIS = new Map<string, readonly string[]>();
for (const [axis, words] of Object.entries(QUALIFIER_AXES)) {
  for (const w of words.split(' ')) {
    // Words are compared stemmed ("incoming" is "incom"), so the stems qualify as well.
    for (const form of new Set([w, stem(w), dropE(stem(w))])) {
      const on = QUALIFIER_AXIS.get(form) ?? [];
      if (!on.includes(axis)) QUALIFIER_AXIS.set(form, [...on, axis]);
    }
  }
}
/**
 * Axes whose qualifier, said by one of the only two facts of a kind in a subject and not by the
 * other, narrows how one fact is said rather than naming a fact apart: when it recurs ("the design
 * team meets every Wednesday for the weekly sync"), its age ("Mateus got his new laptop"), where it
 * runs ("current ranking model in production"), which side of a threshold ("flaky above a 2%
 * failure rate") and whether a figure is the goal ("load test goal for checkout"). Measured on the
 * development splits, such pairs were the same fact four times out of five; on the other axes —
 * which end of a range ("the pool holds at least {quantity}"), which of a series, whom it is
 * for, the end of a span, the kind of leave — as often or more a fact apart, or too rarely said to
 * tell, and they still keep the two apart. Two sides each with a qualifier on one axis are two facts on any
 * axis (`sameAxis`).
 */
export const DETAIL_AXES: ReadonlySet<string> = new Set(['when', 'age', 'where', 'side', 'aim']);

/** Whether the axes of two sides' qualifiers meet: alternatives on one axis (`non` is on every axis). */
export function sameAxis(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  if (a.has('any') || b.has('any')) return true;
  for (const axis of a) if (b.has(axis)) return true;
  return false;
}

export const NEGATION = new Set(['not', 'no', 'never', "don't", 'dont', "doesn't", 'doesnt', "isn't", 'isnt', "aren't", 'arent', "won't", 'wont', 'cannot', "can't", 'cant', 'without', 'nobody', 'none', 'nothing']);

export function canonicalWord(raw: string): string {
  const s = stem(raw);
  // "Taking", "requiring": the stem lost the silent "e" of the word listed ("take", "require").
  return SYNONYM_OF.get(raw) ?? SYNONYM_OF.get(s) ?? (s !== raw ? SYNONYM_OF.get(`${s}e`) : undefined) ?? dropE(s);
}
