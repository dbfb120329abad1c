import type { Timeline } from '@canon/core';

/** Predicate and value as one text for full-text and trigram search. */
export function searchText(t: Timeline, value: unknown): string {
  const v = typeof value === 'string' ? value : JSON.stringify(value);
  const q = Object.entries(t.fact_key.qualifiers)
    .map(([k, x]) => `${k} ${x}`)
    .join(' ');
  return `${t.fact_key.predicate.replace(/[{}_]/g, ' ')} ${q} ${v}`.replace(/\s+/g, ' ').trim();
}
