// Calendar arithmetic in an IANA time zone with Intl only: no clock, no date library.

export interface LocalDate {
  year: number;
  month: number; // 1-12
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

function parts(ms: number, tz: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Offset of `tz` from UTC at instant `ms`, in milliseconds. */
function offset(ms: number, tz: string): number {
  const p = parts(ms, tz);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The calendar date of an instant in a time zone. */
export function localDate(instant: string, tz: string): LocalDate {
  const p = parts(Date.parse(instant), tz);
  return { year: p.year!, month: p.month!, day: p.day! };
}

/** The instant a local calendar day starts in `tz` (DST-safe: offset rechecked at the result). */
export function startOfDay(d: LocalDate, tz: string): string {
  const guess = Date.UTC(d.year, d.month - 1, d.day);
  let ms = guess - offset(guess, tz);
  ms = guess - offset(ms, tz);
  return new Date(ms).toISOString();
}

export function addDays(d: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(d: LocalDate): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
}

export function isoDate(d: LocalDate): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
}

export function isValidDate(d: LocalDate): boolean {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day));
  return t.getUTCFullYear() === d.year && t.getUTCMonth() === d.month - 1 && t.getUTCDate() === d.day;
}

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;

/** The weekday's index from a full or abbreviated English name, any case. */
export function weekdayIndex(name: string): number {
  const n = name.toLowerCase().slice(0, 3);
  return WEEKDAYS.findIndex((w) => w.toLowerCase().startsWith(n));
}

export function monthIndex(name: string): number {
  return MONTHS.indexOf(name.toLowerCase().slice(0, 3) as (typeof MONTHS)[number]) + 1;
}

/**
 * The first given weekday strictly after `from` ("next Tuesday", "starting Monday"): said on a
 * Tuesday, "next Tuesday" means a week later, never today.
 */
export function nextWeekday(from: LocalDate, index: number): LocalDate {
  const delta = ((index - weekday(from) + 7) % 7) || 7;
  return addDays(from, delta);
}

export function previousWeekday(from: LocalDate, index: number): LocalDate {
  const delta = ((weekday(from) - index + 7) % 7) || 7;
  return addDays(from, -delta);
}
