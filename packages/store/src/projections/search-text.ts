import { REDACTION_MARKER, type Timeline } from '@canon/core';

/** Predicate and value as one text for full-text and trigram search. */
export function searchText(t: Timeline, value: unknown): string {
  const v = typeof value === 'string' ? value : JSON.stringify(value);
  const q = Object.entries(t.fact_key.qualifiers)
    .map(([k, x]) => `${k} ${x}`)
    .join(' ');
  return `${t.fact_key.predicate.replace(/[{}_]/g, ' ')} ${q} ${v}`
    // A redaction marker's rule and hash are no words of the fact: "redis" found "[redacted:stripe:…]"
    // among its near matches.
    .replace(REDACTION_MARKER, ' redacted ')
    .replace(/\s+/g, ' ')
    .replace(LONG_TOKEN, (w) => w.replace(/[-./:_@]+/g, ' '))
    .trim();
}

/**
 * A run of more than 64 characters without a space ("a-1-a-1-…" 20 KB long) is no word anyone
 * searches for, and PostgreSQL's text parser reads a hyphenated one in time that grows with the
 * square of its parts (2 s to index one 20 KB value): its parts are indexed as words instead.
 */
const LONG_TOKEN = /\S{65,}/g;
