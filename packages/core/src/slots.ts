import type { LocalDate } from './dates.js';
import {
  WEEKDAYS,
  addDays,
  isValidDate,
  isoDate,
  localDate,
  monthIndex,
  nextWeekday,
  previousWeekday,
  weekdayIndex,
} from './dates.js';

/** The kinds of value a slot masks (design §3). */
export type SlotType =
  | 'quoted'
  | 'url'
  | 'email'
  | 'date'
  | 'ip'
  | 'version'
  | 'host'
  | 'code'
  | 'money'
  | 'percent'
  | 'time'
  | 'weekday'
  | 'quantity'
  | 'frequency';

export interface Slot {
  type: SlotType;
  /** The words as written. */
  text: string;
  /** Canonical value: weekdays spelled out, dates as YYYY-MM-DD, times as 24h HH:MM. */
  value: string;
}

export interface DateContext {
  occurredAt: string;
  timeZone: string;
}

const MONTH = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const DAY_NAME = String.raw`(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)`;
const ORD = String.raw`(?:st|nd|rd|th)?`;

/** Calendar dates (no bare weekday): the `date` slot. */
const DATE_FORMS = [
  String.raw`\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`,
  String.raw`${MONTH}\.?\s+\d{1,2}${ORD}(?:,?\s+\d{4})?`,
  // "October 2027": a month of a year, read as YYYY-MM.
  String.raw`${MONTH}\.?\s+\d{4}`,
  String.raw`\d{1,2}${ORD}\s+(?:of\s+)?${MONTH}\.?(?:,?\s+\d{4})?`,
  String.raw`(?:next|this|last)\s+(?:${DAY_NAME}|week|month)`,
  String.raw`today|tomorrow|yesterday`,
];

/** Date expressions, also used by the change cues ("effective <date>", "starting Monday"). */
export const DATE_EXPR = [...DATE_FORMS, DAY_NAME].join('|');

/**
 * The units a quantity may carry (the `quantity` slot takes no other), with what each measures:
 * the `unit` qualifier of its fact key (`quantityUnit`), or null where it adds none — a length of
 * time, "k" (thousands of a bare number).
 */
const QUANTITY_UNITS: ReadonlyArray<readonly [measure: string | null, units: string]> = [
  [null, 'ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?'],
  ['bytes', '[kmgt]i?b|bytes?'],
  [null, 'k'],
  ['x', 'x'],
  ['requests/s', String.raw`rps|qps|req\/s`],
  ['requests', 'requests?'],
  ['users', 'users?'],
  ['instances', 'nodes?|replicas?|instances?|pods?'],
  ['cores', 'cores?|v?cpus?'],
  // "Retried 5 times", "3 attempts", "8 retries": how many tries.
  ['times', 'times?|retries|attempts?'],
  ['approvals', 'approvals?|reviewers?'],
];

/**
 * Slot patterns in priority order: an earlier pattern claims its text first, so "v1.4.0" is a
 * version and never a number, "2024-05-06" a date and never three numbers.
 */
const PATTERNS: ReadonlyArray<[SlotType, RegExp]> = [
  ['url', /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)]/gi],
  ['quoted', /"[^"\n]{1,200}"|“[^”\n]{1,200}”|‘[^’\n]{1,200}’|`[^`\n]{1,200}`|(?<![\w'])'[^'\n]{1,200}'(?![\w'])/g],
  ['date', new RegExp(String.raw`\b(?:${DATE_FORMS.join('|')})\b`, 'gi')],
  ['ip', /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g],
  ['version', /\bv\d+(?:\.\d+)*(?:-[0-9A-Za-z.]+)?\b|\b\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?\b/g],
  // "support@example.com": the address whole, before its domain could be taken for a host.
  ['email', /(?<![\w.+%-])[a-z0-9][a-z0-9._%+-]{0,63}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}\b/gi],
  // Tried only where a name starts (not inside one after a dot or a hyphen): from every dot of
  // "1.1.1.…" it read to the end and back, 13 s for a 100 KB text.
  ['host', /(?<![a-z0-9.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}(?::\d{2,5})?\b/gi],
  // A name with a number as one of its hyphenated parts ("us-east-1", "Apache-2.0", "gpt-4o",
  // "BSD-3-Clause"), or numbers joined by slashes ("24/7", "01/02/2027"): one value as written,
  // not a word and a number cut apart ("us-east-{quantity}"). Which hyphenated words qualify is
  // decided by `canonical`; the expression only finds whole tokens, in one pass.
  ['code', /(?<![\w.@/-])(?:[a-z][a-z0-9]*(?:-[a-z0-9]+(?:\.\d+)*)+|\d{1,4}(?:\/\d{1,4}){1,2})(?![\w@/-]|\.\d)/gi],
  ['money', /(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:[kKmMbB]|bn|thousand|million|billion)\b)?|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD)\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:[kKmMbB]|bn|thousand|million|billion)\b)?|\b\d[\d,]*(?:\.\d+)?(?:\s?(?:[kKmMbB]|bn|thousand|million|billion))?\s?(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|dollars|euros|pounds)\b)/g],
  ['percent', /\b\d+(?:\.\d+)?\s?(?:%|percent\b)/gi],
  ['time', /\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?(?:am|pm))?(?:\s?(?:UTC|GMT|Z))?\b|\b(?:1[0-2]|0?[1-9])\s?(?:am|pm)\b(?:\s?(?:UTC|GMT))?/gi],
  ['weekday', /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|\b(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b\.?/gi],
  ['quantity', new RegExp(String.raw`(?<![\w.])[-+]?\d+(?:[.,]\d+)*(?:\s?(?:${QUANTITY_UNITS.map(([, units]) => units).join('|')})\b)?`, 'gi')],
];

/**
 * What a quantity counts or measures, when its unit says so and it is not a length of time: a text
 * claim's fact key keeps it as its `unit` qualifier (design §3), so "The cache node has 64 GB" and
 * "The cache node has 16 cores" are two facts, where one template made them one memory whose 64 GB
 * the cores replaced. Lengths of time and bare numbers give none: "30 days" and "2 weeks" stay one
 * fact's values, and most quantities keep the key they had. Units that name one thing are one
 * unit ("3 pods" / "5 replicas", "2 approvals" / "2 reviewers", "5 times" / "3 attempts"), so a
 * change told in the other word is still a change.
 */
export function quantityUnit(text: string): string | null {
  const unit = text.replace(/^[-+]?\d[\d.,]*\s?/, '');
  if (unit === '') return null;
  for (const [measure, re] of UNIT_OF) if (re.test(unit)) return measure;
  return null;
}

const UNIT_OF = QUANTITY_UNITS.map(([measure, units]) => [measure, new RegExp(`^(?:${units})$`, 'i')] as const);

// Abbreviated weekdays collide with words ("sat", "sun", "wed"): only capitalized forms count.
const ABBREVIATED = /^(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?$/;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function canonicalTime(text: string): string {
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s?(am|pm)?\s?(UTC|GMT|Z)?$/i.exec(text.trim());
  if (!m) return text;
  let h = Number(m[1]);
  const ampm = m[4]?.toLowerCase();
  if (ampm === 'pm' && h < 12) h += 12;
  if (ampm === 'am' && h === 12) h = 0;
  const base = `${pad(h)}:${m[2] ?? '00'}${m[3] ? `:${m[3]}` : ''}`;
  return m[5] ? `${base} UTC` : base;
}

/**
 * Resolves a date expression against the episode's time (in the workspace time zone). Returns
 * an ISO date, an ISO instant (for date-times), or null when it is not a date.
 */
export function resolveDate(text: string, ctx: DateContext): string | null {
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const today = localDate(ctx.occurredAt, ctx.timeZone);
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](.+))?$/.exec(t);
  if (iso) {
    if (iso[4]) {
      const ms = Date.parse(text.trim().replace(' ', 'T'));
      return Number.isNaN(ms) ? null : new Date(ms).toISOString();
    }
    const d = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    return isValidDate(d) ? isoDate(d) : null;
  }
  const rel: Record<string, LocalDate> = {
    today,
    tomorrow: addDays(today, 1),
    yesterday: addDays(today, -1),
    'next week': nextWeekday(today, 1),
    'next month': { year: today.month === 12 ? today.year + 1 : today.year, month: (today.month % 12) + 1, day: 1 },
  };
  if (rel[t]) return isoDate(rel[t]);
  const rw = /^(?:(next|this|last) )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)$/.exec(t);
  if (rw) {
    const idx = weekdayIndex(rw[2]!);
    return isoDate(rw[1] === 'last' ? previousWeekday(today, idx) : nextWeekday(today, idx));
  }
  const my = /^([a-z]+)\.? (\d{4})$/.exec(t);
  if (my) {
    const month = monthIndex(my[1]!);
    return month > 0 ? `${my[2]}-${pad(month)}` : null;
  }
  const md = /^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?$/.exec(t) ?? null;
  const dm = /^(\d{1,2})(?:st|nd|rd|th)? (?:of )?([a-z]+)\.?(?:,? (\d{4}))?$/.exec(t) ?? null;
  const [monthName, dayText, yearText] = md ? [md[1], md[2], md[3]] : dm ? [dm[2], dm[1], dm[3]] : [];
  if (monthName && dayText) {
    // A written date without a year is read in the year the episode happened.
    const d = { year: yearText ? Number(yearText) : today.year, month: monthIndex(monthName), day: Number(dayText) };
    return d.month > 0 && isValidDate(d) ? isoDate(d) : null;
  }
  return null;
}

function canonical(type: SlotType, text: string, ctx: DateContext): string | null {
  const spaced = text.replace(/\s+/g, ' ');
  switch (type) {
    case 'weekday': {
      if (text.length <= 6 && !/day/i.test(text) && !ABBREVIATED.test(text)) return null;
      return WEEKDAYS[weekdayIndex(text)] ?? spaced;
    }
    case 'date':
      return resolveDate(text, ctx);
    case 'time':
      return canonicalTime(text);
    case 'quoted':
      return spaced;
    case 'host':
      // "Node.js", "setup.py", "README.md": a file or a library, not a machine.
      return FILE_EXTENSION.test(text) ? null : spaced;
    case 'code':
      // A hyphenated word is a code only when one of its later parts is a number ("us-east-1",
      // "gpt-4o", "Apache-2.0"); "follow-up", "e2e-tests" stay words.
      return text.includes('/') || /-\d+(?:\.\d+)*[a-z]?(?:-|$)/i.test(text) ? text : null;
    case 'quantity':
      return canonicalQuantity(spaced);
    default:
      return spaced;
  }
}

/** Names ending in these are files (or libraries named like them) far more often than hosts. */
const FILE_EXTENSION = /\.(?:[cm]?js|jsx|tsx?|json5?|ya?ml|toml|txt|lock|cfg|ini|conf|log|csv|md|mdx|py|rb|rs|go|java|kt|swift|sql|html?|css|xml|sh|env|pem)(?::\d+)?$/i;

/** Units of time as written, and the word a value spells them with. */
const TIME_UNITS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:ms|msecs?|milliseconds?)$/i, 'millisecond'],
  [/^(?:s|secs?|seconds?)$/i, 'second'],
  [/^(?:mins?|minutes?)$/i, 'minute'],
  [/^(?:h|hrs?|hours?)$/i, 'hour'],
  [/^days?$/i, 'day'],
  [/^weeks?$/i, 'week'],
  [/^months?$/i, 'month'],
  [/^years?$/i, 'year'],
];

/**
 * A quantity's value: its number and unit one space apart, a unit of time spelled out ("30s",
 * "30 sec" and "30 seconds" are one value; "300ms" and "300 ms" too), other units as written.
 * Never a conversion: "2 weeks" and "14 days" stay two values (design §3).
 */
function canonicalQuantity(text: string): string {
  const m = /^([-+]?\d[\d.,]*)\s?(.*)$/.exec(text);
  if (!m || m[2] === '') return text;
  const [, number, unit] = m as unknown as [string, string, string];
  // "the 1990s" is a decade, not a length of time.
  if (/^s$/i.test(unit) && /^(?:1[89]|20)\d0$/.test(number)) return text;
  const time = TIME_UNITS.find(([re]) => re.test(unit));
  if (time) return `${number} ${time[1]}${Number(number.replace(/,/g, '')) === 1 ? '' : 's'}`;
  // "12k", "3x": a multiplier, written against its number.
  if (/^[kx]$/i.test(unit)) return `${number}${unit}`;
  return `${number} ${unit}`;
}

/**
 * How often, in the words people use, and the value each is written as: "every day" and "daily"
 * are one value, "weekly" and "every week" another.
 */
const FREQUENCIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:hourly|every hour)$/i, 'hourly'],
  [/^(?:daily|every day|once a day)$/i, 'daily'],
  [/^(?:nightly|every night)$/i, 'nightly'],
  [/^(?:twice a day)$/i, 'twice daily'],
  [/^(?:bi-?weekly|fortnightly|every other week|every (?:two|2) weeks)$/i, 'biweekly'],
  [/^(?:weekly|every week|once a week)$/i, 'weekly'],
  [/^(?:twice a week)$/i, 'twice weekly'],
  [/^(?:monthly|every month|once a month)$/i, 'monthly'],
  [/^(?:bimonthly|every other month|every (?:two|2) months)$/i, 'bimonthly'],
  [/^(?:twice a month)$/i, 'twice monthly'],
  [/^(?:quarterly|every quarter|once a quarter)$/i, 'quarterly'],
  [/^(?:semi-?annually|twice a year)$/i, 'semiannually'],
  [/^(?:yearly|annually|every year|once a year)$/i, 'yearly'],
];

// A frequency said as how something happens ("Backups run weekly.", "… weekly on Fridays"), not
// as a word before a noun ("the weekly sync", "nightly backups"): followed by the end of a clause
// or a preposition.
const FREQUENCY =
  /\b(?:hourly|daily|nightly|bi-?weekly|fortnightly|weekly|bimonthly|monthly|quarterly|semi-?annually|yearly|annually|every (?:other (?:week|month)|(?:two|2) (?:weeks|months)|hour|day|night|week|month|quarter|year)|(?:once|twice) a (?:day|week|month|quarter|year))(?=\s*(?:[.,;:!?)]|$)|\s+(?:at|on|in|from|until|till|for|and|but|or|so|now|instead|starting|effective|since|after|before|during|by|with|via|through)\b)/i;

/**
 * A sentence with no other value whose one value is how often something happens: "Backups run
 * weekly." is `Backups run {frequency}` = weekly, so "Backups run daily." is the same fact with
 * another value rather than a note of its own. Only where no other slot is found: "The fee is $49
 * billed annually." keeps "annually" in its wording, as before.
 */
export function maskFrequency(sentence: string): Masked | null {
  const m = FREQUENCY.exec(sentence);
  if (!m) return null;
  const text = m[0];
  const value = FREQUENCIES.find(([re]) => re.test(text.replace(/\s+/g, ' ')))?.[1];
  if (value === undefined) return null;
  const parts = [sentence.slice(0, m.index), sentence.slice(m.index + text.length)];
  const slots: Slot[] = [{ type: 'frequency', text, value }];
  return { template: templateOf(parts, slots), slots, parts };
}

export interface Masked {
  /** The text with every slot replaced by `{type}`: the predicate of a text claim. */
  template: string;
  slots: Slot[];
  /** The text around the slots: `slots.length + 1` pieces, the template being them joined by `{type}`. */
  parts: string[];
}

/** The template of pieces and the slots between them. */
export function templateOf(parts: readonly string[], slots: readonly Slot[]): string {
  let out = parts[0] ?? '';
  for (let i = 0; i < slots.length; i += 1) out += `{${slots[i]!.type}}${parts[i + 1] ?? ''}`;
  return out;
}

const OPEN = '\uE000';
const CLOSE = '\uE001';

/**
 * Masks the values of a sentence into a template (design §3). Every unmasked word — negation
 * included — stays in the template, so "Do not deploy on {weekday}" and "Deploy on {weekday}"
 * are different predicates, while "runs on Tuesday" and "runs on Thursday" share one.
 */
export function maskSlots(sentence: string, ctx: DateContext): Masked {
  const found: Slot[] = [];
  let work = sentence.replace(/[\uE000-\uE1FF]/gu, '');
  for (const [type, re] of PATTERNS) {
    work = work.replace(re, (match: string) => {
      const value = canonical(type, match, ctx);
      // 255 slots per sentence at most (one placeholder code point each); beyond that, words.
      if (value === null || found.length >= 0xff) return match;
      found.push({ type, text: match, value });
      // The placeholder holds no digit or letter, so later patterns cannot match inside it.
      return `${OPEN}${String.fromCharCode(0xe100 + found.length - 1)}${CLOSE}`;
    });
  }
  // Slots are reported in reading order, whatever pattern found them.
  const ordered: Slot[] = [];
  const parts: string[] = [];
  const placeholder = new RegExp(`${OPEN}(.)${CLOSE}`, 'gu');
  let last = 0;
  for (let m = placeholder.exec(work); m !== null; m = placeholder.exec(work)) {
    parts.push(work.slice(last, m.index));
    ordered.push(found[m[1]!.charCodeAt(0) - 0xe100]!);
    last = m.index + m[0].length;
  }
  parts.push(work.slice(last));
  return { template: templateOf(parts, ordered), slots: ordered, parts };
}
