import type { z } from 'zod';
import type { EpisodeInput } from '@canon/core';
import type { PredicatePolicies } from './predicates.js';

/** A JSON value, as a cursor is stored (jsonb). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface SyncOptions {
  /** The cursor saved with the last committed batch; null on a first sync. */
  cursor: JsonValue | null;
  /**
   * Lower bound (ISO 8601) for sources that can filter by time. The later of this and the
   * cursor's own position wins; content sources (workspace) ignore it.
   */
  since?: string | undefined;
  /** Nothing is written; connectors must not change their source either. */
  dryRun: boolean;
  signal: AbortSignal;
}

/** One page of a sync: episodes to append and the cursor that holds once they are stored. */
export interface SyncBatch {
  episodes: EpisodeInput[];
  /** Saved in the same transaction as `episodes`; the next sync resumes from it. */
  cursor: JsonValue;
  /** Source items read to build this batch (issues, commits, files). */
  fetched: number;
  /** Items read but turned into no episode, counted by reason (`binary`, `too_large`, …). */
  skipped?: Readonly<Record<string, number>>;
  /** Items the whole sync is expected to read, when the connector knows it (for a progress bar). */
  total?: number | null;
  /**
   * Statements of this batch's episodes that will give no fact, by reason, when the connector
   * reads its documents with the compiler's extractor: `ambiguous` (one version stating two
   * values for one key), `unparsed` (a settings file its parser refused).
   */
  statements?: Readonly<Record<string, number>>;
}

export interface CheckResult {
  ok: boolean;
  /** One line a person can act on ("GITHUB_TOKEN is not set", "not a git repository: …"). */
  message: string;
}

/**
 * A configured connector instance. `sync` does the I/O and pages; `toEpisodes` is the pure
 * mapping from one source item to its episodes, so key recipes can be tested without I/O.
 */
export interface Connector<Config = unknown, Item = unknown> {
  /** The episode `source` (a SourceId slug). */
  readonly id: string;
  readonly configSchema: z.ZodType<Config>;
  /** The parsed, frozen configuration of this instance. */
  readonly config: Readonly<Config>;
  /** The predicates this connector emits and the policy each needs (design §4). */
  readonly predicates: PredicatePolicies;
  check(signal?: AbortSignal): Promise<CheckResult>;
  sync(options: SyncOptions): AsyncIterable<SyncBatch>;
  toEpisodes(item: Item): EpisodeInput[];
}

/** What a registry (CLI, scheduled jobs) needs to build instances from raw configuration. */
export interface ConnectorDefinition<Config = unknown, Item = unknown> {
  readonly id: string;
  readonly configSchema: z.ZodType<Config>;
  readonly predicates: PredicatePolicies;
  /** Parses `config` with `configSchema` (throws ConnectorConfigError) and returns an instance. */
  create(config: unknown): Connector<Config, Item>;
  /**
   * An erasure of these subjects (design §8), told to an instance's cursor: the cursor without
   * anything naming them — and, where the cursor would make the next run write about them again,
   * with what keeps it from doing so, content-free. Undefined when the cursor names none of them.
   */
  forgetSubjects?(cursor: unknown, subjects: readonly string[], instanceId: string): unknown;
}
