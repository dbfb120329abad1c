import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDocument } from '@canon/core';
import { loadExtractionDataset } from '../bench/eval/extraction/dataset.js';
import { memoryPath, sameValue, scoreFile } from '../bench/eval/extraction/match.js';

// The development files of `npm run eval`'s document extraction (bench/eval/extraction), read
// by the pure extractor: a change that loses a fact, or makes one up, fails here before the eval.
// The held-out third (split c) is measured by the eval only: it is not a target to tune on.
const files = loadExtractionDataset(process.cwd()).filter((f) => f.split !== 'c');

describe('document extraction (development files)', () => {
  it('covers at least 30 files of at least 6 formats', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(new Set(files.map((f) => f.format)).size).toBeGreaterThanOrEqual(6);
  });

  it.each(files.map((f) => [f.id, f] as const))('%s: every expected fact, nothing else, no key stated twice', (_id, file) => {
    const reading = readDocument(file.path.split('/').pop(), fs.readFileSync(file.absolutePath, 'utf8'));
    const memories = reading.facts.map((f) => ({ predicate: f.predicate, qualifiers: f.qualifiers, value: f.value, conflicted: false }));
    const score = scoreFile(memories, file.expected, file.format);
    expect(score.missed).toEqual([]);
    expect(score.unexpected).toEqual([]);
    expect(reading.dropped['ambiguous'] ?? 0).toBe(0);
  });
});

describe('the matcher', () => {
  it('reads a structured predicate as its key path, and Markdown as headings, items, row, then predicate', () => {
    expect(memoryPath({ predicate: 'jobs.test.steps[3].run', qualifiers: {} }, 'yaml')).toEqual(['jobs', 'test', 'steps', '3', 'run']);
    expect(memoryPath({ predicate: 'Type', qualifiers: { row: 'port', h3: 'Config', h2: 'API', l1: 'x' } }, 'markdown')).toEqual(['API', 'Config', 'x', 'port', 'Type']);
  });

  it('compares structured values by type and Markdown values as text', () => {
    expect(sameValue(86, 86, 'json')).toBe(true);
    expect(sameValue('86', 86, 'json')).toBe(false);
    expect(sameValue(['a', 'b'], ['a', 'b'], 'yaml')).toBe(true);
    expect(sameValue('Value  in\nbytes', 'Value in bytes', 'markdown')).toBe(true);
    expect(sameValue('value in bytes', 'Value in bytes', 'markdown')).toBe(false);
  });

  it('counts a duplicate memory against precision, and a key matched with another value as wrong', () => {
    const expected = [{ file: 'f', key: ['a'], value: 1 }];
    const m = (value: unknown) => ({ predicate: 'a', qualifiers: {}, value, conflicted: false });
    expect(scoreFile([m(1), m(1)], expected, 'json')).toMatchObject({ memories: 2, matched_memories: 1, matched_expected: 1 });
    expect(scoreFile([m(2)], expected, 'json')).toMatchObject({ matched_memories: 0, matched_expected: 0 });
  });
});
