import { z } from 'zod';
import { canonicalJson, sha256 } from './hash.js';

/** A plain JSON value: what the store saves as jsonb and hands back unchanged. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export const Json: z.ZodType<Json> = z.json() as z.ZodType<Json>;

// Horizontal white space only: line breaks carry structure (lists, paragraphs) and are kept.
const HORIZONTAL_SPACE = /[ \t\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g;
// Characters that show nothing and mean nothing in a word: a zero-width space, a word joiner, a
// soft hyphen, a byte order mark, the invisible operators of mathematics. Left in, "night\u200bly"
// was a fact key of its own that reads as "nightly". The zero-width (non-)joiners stay: they shape
// scripts and emoji.
const INVISIBLE = /[\u00ad\u180e\u200b\u2060-\u2064\ufeff]/g;
// PostgreSQL stores no U+0000 in text or jsonb. The door refuses it in what a client sends, but a
// file's JSON or YAML can spell one ("\u0000", "\0"): read, it is the replacement character, which
// says something was there.
const NUL = /\u0000/g;

/**
 * Conservative text normalization (design §3). It only removes differences no reader would call a
 * difference of meaning:
 * - line endings (CRLF, CR → LF);
 * - Unicode NFC (composed and decomposed "é" are the same letter; NFC, unlike NFKC, never folds
 *   digits, superscripts or units into something else);
 * - runs of horizontal white space → one space; white space around each line and the whole text;
 * - invisible characters that are no part of a word (zero-width space, word joiner, soft hyphen,
 *   byte order mark) removed; U+0000, which PostgreSQL cannot store, as U+FFFD.
 * It never touches case, digits, units, dates, negation or punctuation: "Staging" and "staging",
 * "5 ms" and "5ms" stay different, because for identifiers and quantities they can differ.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(INVISIBLE, '')
    .replace(NUL, '\ufffd')
    .replace(/\r\n?/g, '\n')
    .replace(HORIZONTAL_SPACE, ' ')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .trim();
}

/** Normalizes every string inside a JSON value (keys too); numbers are kept, -0 becomes 0. */
export function normalizeValue(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return normalizeText(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('claim values must be finite numbers');
    return Object.is(value, -0) ? 0 : value;
  }
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(normalizeValue);
  if (typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out[normalizeText(k)] = normalizeValue(v);
    }
    return out;
  }
  throw new TypeError(`unsupported claim value of type ${typeof value}`);
}

/**
 * The comparison form of a normalized value: its RFC 8785 canonical JSON. Two claims state the
 * same value exactly when these strings are equal — the decision is made on the value itself,
 * never on a hash of it.
 */
export function valueKey(value: Json): string {
  // A string's canonical JSON is its JSON: most values are strings, and the fold asks once a claim.
  if (typeof value === 'string') return JSON.stringify(value);
  return canonicalJson(value);
}

/** A short fingerprint of normalized text, used to key notes (text with no slot). */
export function fingerprint(text: string): string {
  return sha256(`note/1|${normalizeText(text)}`).slice(0, 16);
}

/** Sorted, de-duplicated, normalized conditions; empty strings dropped. */
export function normalizeConditions(conditions: readonly string[] | undefined): string[] {
  const set = new Set((conditions ?? []).map(normalizeText).filter((c) => c.length > 0));
  return [...set].sort(compareStrings);
}

/** Code-unit order: locale-independent, so sorting gives the same bytes on every machine. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
