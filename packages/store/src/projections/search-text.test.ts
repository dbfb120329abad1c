import { describe, expect, it } from 'vitest';
import { searchText } from './search-text.js';

const timeline = (predicate: string) => ({ fact_key: { predicate, qualifiers: { env: 'staging' } } }) as unknown as Parameters<typeof searchText>[0];

describe('searchText', () => {
  it('is the predicate without its slot marks, the qualifiers and the value', () => {
    expect(searchText(timeline('The deploy region is {code}'), 'us-east-1')).toBe('The deploy region is code env staging us-east-1');
  });

  it('indexes the parts of a run too long to be a word, not the run', () => {
    const chain = 'a-1-'.repeat(5000);
    const text = searchText(timeline('note'), chain);
    expect(Math.max(...text.split(' ').map((w) => w.length))).toBeLessThanOrEqual(64);
    expect(text.startsWith('note env staging a 1 a 1')).toBe(true);
  });

  it('indexes a redaction marker as the word "redacted", not its rule and hash', () => {
    const text = searchText(timeline('note'), 'The payments key is [redacted:stripe:bcdfghjklnrt] for now');
    expect(text).toBe('note env staging The payments key is redacted for now');
  });
});
