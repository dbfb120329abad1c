import type { Json } from '../normalize.js';

/**
 * One fact a document states: a predicate, the qualifiers that place it in the document (a
 * heading path, a table row), a value, and the statement it was read from (its line, its cell),
 * which qualifies it the way an episode's text qualifies its claims.
 */
export interface DocumentFact {
  predicate: string;
  qualifiers: Record<string, string>;
  value: Json;
  text: string;
}

/** A document's facts and what was left out of them, by reason. */
export interface DocumentReading {
  format: DocumentFormat;
  facts: DocumentFact[];
  /**
   * Statements not turned into facts, counted: `ambiguous` (two statements of this version on
   * one key with different values — both dropped, so a version never disputes itself),
   * `unparsed` (a structured file its parser refused: it stays text), `too_many` (a document
   * stating more than `MAX_DOCUMENT_FACTS`: all of its facts), `too_long` (a key longer than a fact key may be).
   */
  dropped: Record<string, number>;
}

export type DocumentFormat =
  | 'json'
  | 'jsonc'
  | 'package.json'
  | 'yaml'
  | 'toml'
  | 'pyproject.toml'
  | 'dotenv'
  | 'ini'
  | 'requirements.txt'
  | 'go.mod'
  | 'dockerfile'
  | 'markdown'
  | 'text'
  /** Lockfiles: generated, restating every transitive dependency; the manifest states the facts. */
  | 'lockfile'
  /** Source code: searchable as text, never memories. */
  | 'code'
  /** A format with no extractor (images as text, CSV, XML, …): kept as text, no memories. */
  | 'other';

/**
 * A document stating more facts than this is data, not settings or notes — a benchmark's results,
 * a schema snapshot, a recorded API response — and stays text: all of it, not the first part
 * (which part would be an accident of order). Markdown gets more room: a long table is still a
 * table a person wrote.
 */
export const MAX_DOCUMENT_FACTS = Object.freeze({ structured: 500, markdown: 2000 });

/** Predicates and qualifier values longer than this are not keys a person reads: dropped. */
export const MAX_KEY_CHARS = 400;
