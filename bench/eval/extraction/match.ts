import { parseKeyPath } from '@canon/core';
import type { ExpectedFact, ExtractionFormat } from './dataset.js';

/** A memory as the matcher sees it: its key (predicate and qualifiers), its current value, its status. */
export interface ExtractedMemory {
  predicate: string;
  qualifiers: Record<string, string>;
  value: unknown;
  conflicted: boolean;
}

const STRUCTURED: ReadonlySet<ExtractionFormat> = new Set(['package.json', 'json', 'jsonc', 'yaml', 'ini', 'dotenv']);

/**
 * The path of names a memory is recalled by, in the dataset's terms: for a structured file the
 * key path its predicate prints (`compilerOptions.strict` → compilerOptions, strict); for Markdown
 * and text the heading path (`h1`…`h6` by level), the enclosing list items (`l1`, `l2`, …), the
 * table row, then the predicate (a label or a column header, one name).
 */
export function memoryPath(m: Pick<ExtractedMemory, 'predicate' | 'qualifiers'>, format: ExtractionFormat): string[] {
  if (STRUCTURED.has(format)) {
    const parsed = parseKeyPath(m.predicate);
    return parsed ? parsed.map(String) : [m.predicate];
  }
  const q = m.qualifiers;
  const ordered = (prefix: string) =>
    Object.keys(q)
      .filter((k) => new RegExp(`^${prefix}\\d+$`).test(k))
      .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
      .map((k) => q[k]!);
  return [...ordered('h'), ...ordered('l'), ...(q['row'] !== undefined ? [q['row']] : []), m.predicate];
}

/** Light normalization of a name: Unicode NFC, whitespace collapsed, case folded. */
export function normalizeName(s: string): string {
  return s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Values compare by type for structured formats (a number is not its digits) and as text for
 * Markdown and text, whose values are strings as written; strings after NFC and collapsing
 * whitespace, case kept.
 */
export function sameValue(actual: unknown, expected: unknown, format: ExtractionFormat): boolean {
  const norm = (v: unknown): unknown => {
    if (typeof v === 'string') return v.normalize('NFC').replace(/\s+/g, ' ').trim();
    if (Array.isArray(v)) return v.map(norm);
    return v;
  };
  if (!STRUCTURED.has(format) && typeof expected === 'string') return typeof actual === 'string' && norm(actual) === norm(expected);
  return JSON.stringify(norm(actual)) === JSON.stringify(norm(expected));
}

export interface FileScore {
  memories: number;
  matched_memories: number;
  expected: number;
  matched_expected: number;
  conflicts: number;
  /** Memories that name no expected fact or state another value, for reading. */
  unexpected: Array<{ path: string[]; value: unknown }>;
  missed: Array<{ key: string[]; value: unknown }>;
}

/**
 * A memory matches an expected fact when its path names the expected key (element by element,
 * after `normalizeName`) and its current value equals the expected value (`sameValue`). Each
 * expected fact is matched at most once, so a duplicate memory counts against precision.
 */
export function scoreFile(memories: readonly ExtractedMemory[], expected: readonly ExpectedFact[], format: ExtractionFormat): FileScore {
  const byKey = new Map<string, ExpectedFact>();
  for (const e of expected) byKey.set(JSON.stringify(e.key.map(normalizeName)), e);
  const used = new Set<ExpectedFact>();
  const unexpected: FileScore['unexpected'] = [];
  let matched = 0;
  for (const m of memories) {
    const path = memoryPath(m, format);
    const e = byKey.get(JSON.stringify(path.map(normalizeName)));
    if (e && !used.has(e) && sameValue(m.value, e.value, format)) {
      used.add(e);
      matched += 1;
    } else unexpected.push({ path, value: m.value });
  }
  return {
    memories: memories.length,
    matched_memories: matched,
    expected: expected.length,
    matched_expected: used.size,
    conflicts: memories.filter((m) => m.conflicted).length,
    unexpected,
    missed: expected.filter((e) => !used.has(e)).map((e) => ({ key: e.key, value: e.value })),
  };
}
