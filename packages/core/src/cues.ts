import { DATE_EXPR } from './slots.js';

/**
 * The cue classes a careful reader uses (design §3), as one table. Two families:
 * - standing cues only ever LOWER a claim's standing, never raise it:
 *   `hedge` (uncertain: "perhaps", "tentatively", "could be moved"), `hypothetical` ("if",
 *   "would", a proposal), `hearsay` (second-hand or unverifiable: "reportedly", "someone said");
 * - change evidence: `correction` ("correction:", "that was wrong", "should read") marks the
 *   claim a correction; `change` ("from now on", "effective <date>", "starting Monday") sets an
 *   explicit effective time; `dated` ("as of <date>") dates a statement explicitly, so an old
 *   fact lands in history; `attestation` (a record or system confirming the present state:
 *   "the live config now shows", "today's audit confirms") is an explicit time at occurred_at.
 *
 * Where the cue sits decides what happens to its words: `lead` and `trail` phrases and `word`
 * adverbs are removed from the template (they qualify the statement, not the fact, so
 * "Correction: the deploy runs on Thursday" keys like "The deploy runs on Tuesday"); `any` cues
 * stay in the template — modal verbs and conditionals change what is said.
 * Instructions in text ("ignore the above", "forget all") are not cues: they are data.
 */
export type CueClass = 'hedge' | 'hypothetical' | 'hearsay' | 'correction' | 'change' | 'dated' | 'attestation';
export type CuePlace = 'lead' | 'trail' | 'word' | 'any';

export interface Cue {
  name: string;
  class: CueClass;
  place: CuePlace;
  /** Regular expression source, matched case-insensitively; `(?<when>…)` captures a date. */
  pattern: string;
  /** A sentence this cue must fire on (each entry is tested). */
  example: string;
}

/** How much each standing class lowers a claim; the total is capped below one role band (10). */
export const STANDING_PENALTY: Readonly<Record<'hedge' | 'hypothetical' | 'hearsay', number>> = Object.freeze({
  hedge: 3,
  hypothetical: 5,
  hearsay: 4,
});
export const MAX_PENALTY = 9;

// Not followed by a digit: "Dec 2024" is a month of a year (PERIOD), never "Dec 20" and a stray "24".
const WHEN = `(?<when>${DATE_EXPR})(?!\\d)`;
/** A past period named by a year, or a month and a year: "2017", "Aug 2022", "January 2024". */
const PERIOD = '(?<when>(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?\\s+|q[1-4]\\s+|h[12]\\s+)?(?:19|20)\\d{2})(?![-/.]\\d)';
/** Documents that can carry a date of their own. */
const RECORD =
  '(?:spreadsheet|sheet|runbook|wiki|doc|document|page|contract|agreement|email|e-mail|note|notes|deck|slides?|export|report|audit|inventory|list|memo|diagram|ticket|invoice|handbook|manual|readme|plan|minutes|backup|archive|snapshot|config|dump)s?';
/** Records that state the present state of things. */
const RECORD_OF_PRESENT =
  '(?:contract|agreement|order form|sow|msa|dpa|amendment|invoice|record|system of record|cmdb|config(?:uration)?|export|statement|registry|ledger|policy|terms|purchase order|po|renewal)';
/** Systems whose word on the present is a record. */
const SYSTEM =
  "(?:billing system|cmdb|cmdb export|system of record|source of truth|registry|ledger|hr system|hris|workday|bamboohr|salesforce|hubspot|netbox|chargebee|stripe|okta|jamf|servicenow|terraform state|state file|zone file|dns zone|running config|live config|current config|admin console|dashboard|monitoring|status page|inventory|asset register)";
const THAT = '(?:\\s+that)?';

export const CUES: readonly Cue[] = Object.freeze([
  // — correction —
  { name: 'correction-label', class: 'correction', place: 'lead', pattern: '(?:correction|erratum|errata|amendment|fix)\\s*[:–—-]', example: 'Correction: the staging deploy runs on Thursday.' },
  { name: 'actually', class: 'correction', place: 'lead', pattern: 'actually(?:,|:|\\s+(?=(?:the|it|its|it.s|we|our|they|their|this|that)\\b))', example: 'Actually, the staging deploy runs on Thursday.' },
  { name: 'scratch-that', class: 'correction', place: 'lead', pattern: '(?:scratch that|ignore my (?:last|previous|earlier) (?:message|note)|disregard my (?:last|previous|earlier) (?:message|note))[,.:;]?', example: 'Scratch that, the staging deploy runs on Thursday.' },
  { name: 'misspoke', class: 'correction', place: 'lead', pattern: '(?:sorry,?\\s+)?(?:i|we) (?:misspoke|was wrong|were wrong|made a mistake)[,.:;]?', example: 'I misspoke: the staging deploy runs on Thursday.' },
  { name: 'to-correct', class: 'correction', place: 'lead', pattern: 'to correct (?:my|our|the) (?:earlier|previous|last) (?:message|note|statement|post)[,:]?', example: 'To correct my earlier message, the staging deploy runs on Thursday.' },
  { name: 'that-was-wrong', class: 'correction', place: 'any', pattern: '\\b(?:that|this|it) (?:was|is) (?:wrong|incorrect|a mistake|a typo|inaccurate)\\b', example: 'That was wrong, the rate is $120.' },
  { name: 'should-read', class: 'correction', place: 'any', pattern: '\\bshould (?:read|say|have said|have been)\\b', example: 'The rate should read $120.' },
  { name: 'my-mistake', class: 'correction', place: 'any', pattern: '\\b(?:my mistake|my bad|typo|mis-?typed|wrongly (?:stated|listed|said)|incorrectly (?:stated|listed|said))\\b', example: 'My mistake, the rate is $120.' },
  { name: 'corrected', class: 'correction', place: 'any', pattern: '\\b(?:corrected|correcting|correction)\\b', example: 'Corrected rate is $120.' },
  { name: 'erratum', class: 'correction', place: 'any', pattern: '\\b(?:erratum|errata|corrigendum)\\b', example: 'Erratum for the 2.3 release notes: the minimum Node.js version is 20.' },
  { name: 'correct-to', class: 'correction', place: 'any', pattern: "\\b(?:(?:must|please|to|let me|i'?ll|we'?ll|need to|have to)\\s+correct\\b|correct(?:s|ed)?\\s+(?:\\S+\\s+){0,8}?to\\b)", example: 'Please correct the Acme support rate to $120/hour.' },
  { name: 'replace-with', class: 'correction', place: 'any', pattern: '\\b(?:replaces?|replacing|supersedes?)\\b', example: 'relay-02.mail.internal replaces smtp1.mail.internal for invoice mails.' },
  { name: 'wrong-value', class: 'correction', place: 'any', pattern: '\\b(?:(?:had|has|have|listed|showed|shows|with) the wrong|(?:fix(?:es|ed|ing)?|correct(?:s|ed|ing)?)\\s+(?:the\\s+|a\\s+)?(?:wrong|incorrect|bad|stale|outdated)|wrongly|erroneous(?:ly)?)\\b', example: 'docs: fix wrong redis host for checkout-web, it is cache-02.internal.' },

  // — change with a time —
  { name: 'from-now-on', class: 'change', place: 'lead', pattern: '(?:from now on|going forward|moving forward|henceforth|effective immediately|as of now|starting now|starting today|from today)[,:]?', example: 'From now on, the staging deploy runs on Thursday.' },
  { name: 'effective-date', class: 'change', place: 'lead', pattern: `(?:effective|with effect from|starting|beginning|commencing)(?:\\s+(?:on|from|as of))?\\s+${WHEN}[,:]?`, example: 'Effective 2024-05-13, the staging deploy runs on Thursday.' },
  { name: 'from-date-on', class: 'change', place: 'lead', pattern: `from\\s+${WHEN}\\s+on(?:wards?)?[,:]?`, example: 'From next week on, the staging deploy runs on Thursday.' },
  { name: 'trailing-effective', class: 'change', place: 'trail', pattern: `(?:effective|starting|beginning|commencing)(?:\\s+(?:on|from|as of))?\\s+${WHEN}(?:\\s+on(?:wards?)?)?`, example: 'The staging deploy runs on Thursday starting next week.' },
  { name: 'changed-aside', class: 'change', place: 'trail', pattern: `\\(\\s*(?:changed|updated|moved|switched|bumped|raised|lowered|effective|since)(?:\\s+(?:on|from|as of))?\\s+${WHEN}\\s*\\)`, example: 'The cache TTL is 600 seconds (changed yesterday).' },
  { name: 'trailing-from-now-on', class: 'change', place: 'trail', pattern: '(?:from now on|going forward|effective immediately|until further notice|henceforth)', example: 'The staging deploy runs on Thursday from now on.' },
  { name: 'now-is', class: 'change', place: 'any', pattern: '\\b(?:is now|are now|now runs|now run|has changed to|have changed to|has moved to|moved to|switched to|changed to|no longer)\\b', example: 'The staging deploy is now on Thursday.' },
  { name: 'moved-from-to', class: 'change', place: 'any', pattern: '\\b(?:migrated|moved|switched|changed|upgraded|downgraded|bumped|raised|lowered|increased|decreased|reduced|cut over|rotated|renamed|transferred|reassigned|handed (?:over|off))\\b[^.;]{0,60}?\\bto\\b', example: 'notifications-worker was migrated from RabbitMQ to SQS on Oct 17.' },
  { name: 'starting-period', class: 'change', place: 'any', pattern: '\\b(?:starting|beginning|from|as of|effective)\\s+(?:this|next|the next|the coming)\\s+(?:sprint|week|month|quarter|release|cycle|iteration|rotation|year|shift)\\b', example: 'Starting this sprint, growth-team runs 3-week sprints.' },

  // — dated statements —
  { name: 'as-of-date', class: 'dated', place: 'lead', pattern: `(?:as of|as at|as on)\\s+${WHEN}[,:]?`, example: 'As of 2024-03-01, the rate is $100.' },
  { name: 'trailing-as-of', class: 'dated', place: 'trail', pattern: `(?:as of|as at)\\s+${WHEN}`, example: 'The rate is $100 as of March 1, 2024.' },
  { name: 'dated-record', class: 'dated', place: 'any', pattern: `\\b${PERIOD}\\s+(?:\\w+\\s+){0,2}?${RECORD}`, example: 'A 2017 spreadsheet from the old share says the rate is $100.' },
  { name: 'dated-back', class: 'dated', place: 'any', pattern: `\\b(?:back in|in|during|as of|as at|last (?:edited|updated|modified|reviewed|touched)(?:\\s+(?:in|on))?)\\s+${PERIOD}\\b`, example: 'Back in January 2024 the on-call was Aisha Khan.' },

  // — attestation of the present state by a record or system —
  { name: 'live-config-shows', class: 'attestation', place: 'lead', pattern: `(?:the\\s+)?(?:live|current|production|prod|running|deployed)\\s+(?:config(?:uration)?|settings?|dashboard|system|deployment|manifest|environment)s?\\s+(?:now\\s+)?(?:shows?|says|reads|lists|confirms?|reports?)${THAT}[,:]?`, example: 'The live config now shows the staging deploy runs on Thursday.' },
  { name: 'audit-confirms', class: 'attestation', place: 'lead', pattern: `(?:today'?s|the latest|the current|this morning'?s|a fresh|the new)\\s+(?:[\\w-]+\\s+){0,2}?(?:audit|scan|export|report|inventory|check|health check|snapshot|run|invoice|statement)\\s+(?:confirms?|shows?|says|reports?|lists)${THAT}[,:]?`, example: "Today's audit confirms the rate is $120." },
  { name: 'system-of-record', class: 'attestation', place: 'lead', pattern: `(?:the\\s+)?(?:monitoring|status page|registry|database|cmdb|ledger|billing system|system of record|source of truth|admin console)\\s+(?:now\\s+)?(?:shows?|confirms?|reports?|lists|says)${THAT}[,:]?`, example: 'The billing system shows the rate is $120.' },
  // The same words leading a sentence, set off by a comma: taken out of its wording like every
  // lead, so "Per the countersigned contract, the vendor rate is $120." restates the vendor rate.
  { name: 'per-record-lead', class: 'attestation', place: 'lead', pattern: `(?:per|according to|as (?:stated|written|listed) in)\\s+(?:the|our|their|its|this)\\s+(?:[\\w-]+\\s+){0,3}?${RECORD_OF_PRESENT}\\s*,`, example: 'Per the countersigned contract, the vendor rate is $120.' },
  { name: 'per-record', class: 'attestation', place: 'any', pattern: `\\b(?:per|according to|as (?:stated|written|listed) in|under)\\s+(?:the|our|their|its|this)\\s+(?:[\\w-]+\\s+){0,3}?${RECORD_OF_PRESENT}`, example: 'Per the countersigned contract, the support rate is $155/hour.' },
  { name: 'system-shows', class: 'attestation', place: 'any', pattern: `\\b${SYSTEM}\\b[^.;]{0,40}?\\b(?:now\\s+)?(?:shows?|lists?|says|reads|reports?|confirms?|returns?|has)\\b`, example: 'The billing system lists 310 seats for Globex.' },
  { name: 'command-output', class: 'attestation', place: 'any', pattern: '`[^`]{2,200}`\\s+(?:on\\s+\\S+\\s+)?(?:says|shows|returns|prints|outputs|reports|lists|gives)\\b', example: '`show run | i router bgp` on edge-router-2 says: router bgp 65001.' },
  { name: 'pulled-live', class: 'attestation', place: 'any', pattern: '\\b(?:(?:pulled|read|checked|dumped|exported|queried|looked at|inspected)\\s+(?:the\\s+)?(?:live|running|current|production|prod|deployed)\\b|(?:pulled|checked|verified|read|exported|queried)\\s+(?:just now|today|this morning|a minute ago|minutes ago))', example: 'Pulled the live zone file: public-api is a CNAME to lb-eu-1.example.net.' },
  { name: 'fresh-record', class: 'attestation', place: 'any', pattern: `\\b(?:today'?s|this morning'?s|tonight'?s|the latest|a fresh|the new|the current)\\s+(?:[\\w-]+\\s+){0,2}?(?:audit|scan|export|report|inventory|check|health check|snapshot|invoice|statement|sync|dump|run)\\b`, example: "This morning's CMDB export shows billing-db on host db-bill-7." },
  { name: 'verified-now', class: 'attestation', place: 'lead', pattern: '(?:verified|confirmed|checked)\\s+(?:just now|today|in production|live|against production)[,:]?', example: 'Confirmed in production: the staging deploy runs on Thursday.' },

  // — hedges —
  { name: 'i-think', class: 'hedge', place: 'lead', pattern: `(?:i think|i believe|i guess|i suppose|i assume|i reckon|(?:i'?m\\s+)?not\\s+(?:(?:100\\s?%|a hundred percent|entirely|totally|completely|fully|quite|really|that)\\s+)?sure(?:,?\\s+but)?|if i remember correctly|iirc|afaik|as far as i know|it seems|it looks like|seems like|looks like|my guess is|my understanding is|if memory serves)${THAT}[,:]?`, example: 'I think the staging deploy runs on Thursday.' },
  { name: 'hedge-adverb', class: 'hedge', place: 'word', pattern: '(?:perhaps|maybe|probably|possibly|presumably|tentatively|seemingly|roughly|approximately|ostensibly)', example: 'The staging deploy probably runs on Thursday.' },
  { name: 'modal', class: 'hedge', place: 'any', pattern: "\\b(?:could|might|may)\\s+(?:be|have|get|move|change|switch|slip|shift|end up)\\b", example: 'The staging deploy could be moved to Thursday.' },
  { name: 'unsettled', class: 'hedge', place: 'any', pattern: '\\b(?:tbd|tbc|to be (?:confirmed|decided|determined)|pending (?:confirmation|approval|review)|not (?:final|confirmed|decided)|subject to change|for now|draft|likely|unlikely|guess|estimate[ds]?|ballpark)\\b', example: 'The staging deploy is on Thursday for now.' },
  { name: 'question', class: 'hedge', place: 'any', pattern: '\\?\\s*$', example: 'Does the staging deploy run on Thursday?' },

  // — hypotheticals and proposals —
  { name: 'conditional', class: 'hypothetical', place: 'any', pattern: '^(?:if|suppose|supposing|assuming|imagine|hypothetically|in theory|what if|say)\\b', example: 'If we hire, the team grows to 12 people.' },
  { name: 'would', class: 'hypothetical', place: 'any', pattern: '\\b(?:would|could|should we|in case|hypothetically|in theory|in principle|ideally)\\b', example: 'The deploy would run on Thursday.' },
  { name: 'proposal', class: 'hypothetical', place: 'any', pattern: '\\b(?:propos(?:e|ed|al|ing)|suggest(?:s|ed|ion|ing)?|consider(?:ing)?|thinking about|we could|how about|what about|plan(?:s|ned|ning)? to|want(?:s)? to|rfc)\\b', example: 'We propose deploying staging on Thursday.' },

  // — second-hand or unverifiable origin —
  { name: 'heard', class: 'hearsay', place: 'lead', pattern: `(?:rumou?r has it|word is|i heard|i'?ve heard|we heard|someone (?:said|mentioned|told me|says)|somebody (?:said|mentioned|told me)|people (?:say|said)|i was told|we were told|apparently|according to (?:someone|a colleague|a friend|hearsay|rumou?rs?|the grapevine|slack)|(?:a|one) (?:colleague|friend|co-?worker|customer|user|contractor) (?:said|mentioned|told me)|from what i(?:'ve)? heard|heard in passing|secondhand|second-hand)${THAT}[,:]?`, example: 'Someone mentioned that the staging deploy runs on Thursday.' },
  { name: 'hearsay-adverb', class: 'hearsay', place: 'word', pattern: '(?:reportedly|allegedly|supposedly|apparently|purportedly|rumou?redly)', example: 'The staging deploy reportedly runs on Thursday.' },
  { name: 'anonymous', class: 'hearsay', place: 'any', pattern: "\\b(?:unsigned|anonymous(?:ly)?|unattributed|unauthenticated|unidentified|unknown (?:sender|source|caller|author|origin|number|address)|(?:would|did|will)(?:\\s+not|n'?t)\\s+(?:give|leave|sign|share|say) (?:a|their|his|her) name|(?:would|did|will)(?:\\s+not|n'?t)\\s+say who|no name|without (?:a name|signing))\\b", example: 'Found an unsigned note in the DC cage: billing-db is on db-bill-2.' },
  { name: 'low-confidence', class: 'hedge', place: 'any', pattern: '\\b(?:barely legible|illegible|hard to read|partly legible|partially legible|smudged|blurry|blurred|garbled|low[- ]confidence|uncertain|unclear|unreadable|faded)\\b', example: 'OCR uncertain (smudged): the liability cap is $200,000.' },
  { name: 'unapproved', class: 'hypothetical', place: 'any', pattern: "\\b(?:wip|work in progress|unreviewed|unapproved|not (?:yet\\s+)?(?:reviewed|approved|merged|signed|countersigned|final|binding|official)|do ?n[o']?t merge|pending (?:review|approval|signature|sign-?off)|awaiting (?:review|approval|signature|sign-?off))\\b", example: '[WIP, not reviewed] bump prod replicas for public-api to 5.' },
  { name: 'unverified', class: 'hearsay', place: 'any', pattern: "\\b(?:unverified|not verified|can'?t verify|cannot verify|could not verify|couldn'?t verify|unable to verify|can'?t confirm|couldn'?t confirm|could not confirm|anecdotally|hearsay|unconfirmed|unsourced|rumou?rs?)\\b", example: 'Unverified: the staging deploy runs on Thursday.' },
]);

export interface CueMatch {
  cue: Cue;
  when: string | null;
}

export interface CueResult {
  /** The sentence with lead/trail phrases and qualifying adverbs removed. */
  rest: string;
  matches: CueMatch[];
}

/**
 * Cue expressions are ASCII and case-insensitive, and run without the `u` flag: irregexp's
 * Unicode case folding made them about three times slower, and reading cues is most of what
 * extracting a short text costs. Without `u`, `\b`, `\w` and case folding are ASCII's, as the
 * patterns are written.
 */
const compiled = new Map<Cue, RegExp>();
function regex(cue: Cue): RegExp {
  let re = compiled.get(cue);
  if (!re) {
    const src =
      cue.place === 'lead'
        ? `^(?:${cue.pattern})[\\s,:;]*`
        : cue.place === 'trail'
          ? `[\\s,;]*(?:${cue.pattern})[.!]?$`
          : cue.place === 'word'
            ? `\\b${cue.pattern}\\b,?\\s*`
            : cue.pattern;
    re = new RegExp(src, cue.place === 'word' ? 'gi' : 'i');
    compiled.set(cue, re);
  }
  return re;
}

/**
 * The cues of each place, in table order, with their expressions. readCues runs for every
 * sentence of every episode: walking the whole table four times per sentence to pick out one
 * place, through an iterator, allocated more than the sentence's own strings.
 */
type Placed = ReadonlyArray<{ cue: Cue; re: RegExp }>;
let placed: Record<CuePlace, Placed> | null = null;
function cuesAt(place: CuePlace): Placed {
  placed ??= {
    lead: CUES.filter((c) => c.place === 'lead').map((cue) => ({ cue, re: regex(cue) })),
    trail: CUES.filter((c) => c.place === 'trail').map((cue) => ({ cue, re: regex(cue) })),
    word: CUES.filter((c) => c.place === 'word').map((cue) => ({ cue, re: regex(cue) })),
    any: CUES.filter((c) => c.place === 'any').map((cue) => ({ cue, re: regex(cue) })),
  };
  return placed[place];
}

/**
 * One expression per place that matches wherever at least one of that place's cues would: most
 * sentences carry no cue at all, and one pass over such a sentence tells so, where each of the
 * fifty expressions used to scan it on its own (and to be compiled, in a fresh process). Only a
 * sentence the gate admits is read cue by cue, exactly as before, so what is found never depends
 * on the gate. Named groups are dropped: several cues name theirs `when`.
 */
type Gates = Readonly<Record<'lead' | 'trail' | 'any', RegExp>>;
let gates: Gates | null = null;
function gate(place: 'lead' | 'trail' | 'any'): RegExp {
  gates ??= (() => {
    const union = (p: CuePlace) =>
      CUES.filter((c) => c.place === p)
        .map((c) => `(?:${c.pattern.replace(/\(\?<[A-Za-z_]\w*>/g, '(?:')})`)
        .join('|');
    return {
      lead: new RegExp(`^(?:${union('lead')})`, 'i'),
      trail: new RegExp(`(?:${union('trail')})[.!]?$`, 'i'),
      any: new RegExp(union('any'), 'i'),
    };
  })();
  return gates[place];
}

/**
 * Finds the cues of one (normalized) sentence and strips the removable ones. Lead cues are
 * peeled repeatedly ("Correction: from now on, …"); when a lead is removed, the remainder gets
 * its sentence capital back, so the template matches how the sentence is written on its own.
 */
/**
 * The value a statement replaced, said after it: "(previously Tuesday)", ", formerly 30 seconds",
 * "(up from 40%)". Not in `CUES`: extraction reads it only when the words name one value of the
 * kind the sentence states (as a contrast), and then the statement is told as a change — the old
 * value was true before, not wrong (", not Tuesday" corrects).
 */
export const PREVIOUS_VALUE_CUE: Cue = Object.freeze({
  name: 'previous-value',
  class: 'change',
  place: 'trail',
  pattern: '(?:,\\s*|\\s*\\(\\s*)(?:previously|formerly|was|were|used to be|up from|down from|changed from|moved from)\\s+[^()]{1,60}?\\)?',
  example: 'The staging deploy runs on Thursday (previously Tuesday).',
});

export function readCues(sentence: string): CueResult {
  const matches: CueMatch[] = [];
  let rest = sentence;
  const capital = /^\p{Lu}/u.test(rest);
  const leads = cuesAt('lead');
  for (let peeled = gate('lead').test(rest), rounds = 0; peeled && rounds < 8; rounds++) {
    peeled = false;
    for (let i = 0; i < leads.length; i += 1) {
      const { cue, re } = leads[i]!;
      const m = re.exec(rest);
      if (m && m[0].length > 0 && m[0].length < rest.length) {
        matches.push({ cue, when: m.groups?.['when'] ?? null });
        rest = rest.slice(m[0].length);
        peeled = true;
      }
    }
  }
  const trails = gate('trail').test(rest) ? cuesAt('trail') : [];
  for (let i = 0; i < trails.length; i += 1) {
    const { cue, re } = trails[i]!;
    const m = re.exec(rest);
    if (m && m.index > 0) {
      matches.push({ cue, when: m.groups?.['when'] ?? null });
      rest = rest.slice(0, m.index);
    }
  }
  const words = cuesAt('word');
  for (let i = 0; i < words.length; i += 1) {
    const { cue, re } = words[i]!;
    re.lastIndex = 0;
    if (re.test(rest)) {
      matches.push({ cue, when: null });
      rest = rest.replace(re, '');
    }
  }
  rest = rest.replace(/ {2,}/g, ' ').trim();
  const anys = gate('any').test(sentence) ? cuesAt('any') : [];
  for (let i = 0; i < anys.length; i += 1) {
    const { cue, re } = anys[i]!;
    const m = re.exec(sentence);
    if (m) matches.push({ cue, when: m.groups?.['when'] ?? null });
  }
  if (capital && rest !== sentence) rest = rest.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
  return { rest, matches };
}

const unanchored = new Map<Cue, RegExp>();
/** A lead or trail cue found anywhere in a sentence: after a label ("Planning notes: starting…"), mid-sentence. */
function anywhere(cue: Cue): RegExp {
  let re = unanchored.get(cue);
  if (!re) {
    re = new RegExp(`(?:^|[\\s:;,(\\[—–-])(?:${cue.pattern})`, 'i');
    unanchored.set(cue, re);
  }
  return re;
}

/**
 * Every cue of a sentence that qualifies a claim stated beside it (design §3): what `readCues`
 * finds, and lead or trail phrases wherever they stand. Nothing is stripped: a structured claim's
 * value is given, so the words only qualify it.
 */
export function qualifyingCues(sentence: string): CueMatch[] {
  const matches = readCues(sentence).matches;
  const found = new Set(matches.map((m) => m.cue));
  for (const cue of CUES) {
    if (found.has(cue) || (cue.place !== 'lead' && cue.place !== 'trail')) continue;
    const m = anywhere(cue).exec(sentence);
    if (m) matches.push({ cue, when: m.groups?.['when'] ?? null });
  }
  return matches;
}

/** Total standing penalty of the matched cues: each class counts once, capped below a band. */
export function standingPenalty(matches: readonly CueMatch[]): number {
  const classes = new Set(matches.map((m) => m.cue.class));
  let total = 0;
  for (const [cls, penalty] of Object.entries(STANDING_PENALTY)) if (classes.has(cls as CueClass)) total += penalty;
  return Math.min(MAX_PENALTY, total);
}
