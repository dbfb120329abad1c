import { EpisodeInput, LIMITS } from '@canon/core';
import type { Connector, JsonValue, SyncBatch } from './contract.js';
import type { ConnectorSink } from './sink.js';
import { ConnectorAbortedError, ConnectorError, KeyConflictError, isTransient } from './errors.js';

export interface RetryOptions {
  /** Further attempts after a transient failure with no progress in between. */
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = Object.freeze({ retries: 4, minDelayMs: 1_000, maxDelayMs: 30_000 });

export interface RunOptions {
  since?: string | undefined;
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: RunProgress) => void;
  retry?: Partial<RetryOptions>;
  /** Episodes per sink commit; larger connector batches are split (at most the ingest limit). */
  maxCommitSize?: number;
}

export interface KeyConflictRecord {
  idempotency_key: string;
  stored_episode_id: string;
}

export interface RunSummary {
  connector: string;
  dry_run: boolean;
  batches: number;
  /** Source items read. */
  fetched: number;
  /** Episodes handed to the sink (or that would be, in a dry run). */
  submitted: number;
  created: number;
  duplicates: number;
  erased: number;
  /** Items stored with secrets replaced by markers (design §3). */
  redacted: number;
  /** Items that held a secret in a workspace that refuses them: not stored. */
  refused: number;
  /** Created episodes that end something: a vanished file, a removed dependency. */
  retractions: number;
  skipped: Record<string, number>;
  /** Statements of the documents read that give no fact, by reason (see `SyncBatch.statements`). */
  statements: Record<string, number>;
  key_conflicts: KeyConflictRecord[];
  /** Transient failures retried. */
  retries: number;
  /** The cursor in force after the run. */
  cursor: JsonValue | null;
}

export interface RunProgress extends Readonly<Omit<RunSummary, 'skipped' | 'key_conflicts'>> {
  phase: 'syncing' | 'retrying' | 'done';
  /** Items the connector expects to read in all, when it knows. */
  total: number | null;
  skipped: Readonly<Record<string, number>>;
  key_conflicts: number;
}

/** True when an episode ends something: a lineage retraction or any retracted claim. */
export function isRetraction(episode: EpisodeInput): boolean {
  if (episode.body['retract_lineage'] === true) return true;
  return episode.body.claims?.some((c) => c.op === 'retract') ?? false;
}

/**
 * Runs a connector into a sink: pages through `sync`, commits each batch with its cursor,
 * and retries transient failures by restarting `sync` from the last committed cursor after a
 * backoff. Restarting is safe because every key names one event: re-read items come back as
 * `duplicate`.
 */
export async function runConnector(
  connector: Connector<unknown, unknown>,
  sink: ConnectorSink,
  options: RunOptions = {},
): Promise<RunSummary> {
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };
  const signal = options.signal ?? new AbortController().signal;
  const dryRun = options.dryRun ?? false;
  const maxCommit = Math.min(options.maxCommitSize ?? LIMITS.batchSize, LIMITS.batchSize);
  const summary: RunSummary = {
    connector: connector.id,
    dry_run: dryRun,
    batches: 0,
    fetched: 0,
    submitted: 0,
    created: 0,
    duplicates: 0,
    erased: 0,
    redacted: 0,
    refused: 0,
    retractions: 0,
    skipped: {},
    statements: {},
    key_conflicts: [],
    retries: 0,
    cursor: null,
  };
  let total: number | null = null;
  const report = (phase: RunProgress['phase']) =>
    options.onProgress?.({ ...summary, phase, total, skipped: { ...summary.skipped }, key_conflicts: summary.key_conflicts.length });
  const aborted = () => new ConnectorAbortedError(summary, signal.reason);

  if (signal.aborted) throw aborted();
  summary.cursor = await sink.loadCursor();
  let failures = 0;

  for (;;) {
    try {
      for await (const batch of connector.sync({ cursor: summary.cursor, since: options.since, dryRun, signal })) {
        if (signal.aborted) throw aborted();
        if (batch.total !== undefined) total = batch.total;
        const episodes = validate(connector.id, batch);
        if (dryRun) {
          summary.submitted += episodes.length;
          summary.retractions += episodes.filter(isRetraction).length;
        } else {
          await commitBatch(sink, episodes, summary.cursor, batch.cursor, maxCommit, summary);
        }
        summary.cursor = batch.cursor;
        summary.batches += 1;
        summary.fetched += batch.fetched;
        for (const [reason, count] of Object.entries(batch.skipped ?? {})) {
          summary.skipped[reason] = (summary.skipped[reason] ?? 0) + count;
        }
        for (const [reason, count] of Object.entries(batch.statements ?? {})) {
          summary.statements[reason] = (summary.statements[reason] ?? 0) + count;
        }
        failures = 0;
        report('syncing');
      }
      report('done');
      return summary;
    } catch (error) {
      if (signal.aborted) throw error instanceof ConnectorAbortedError ? error : aborted();
      if (!isTransient(error) || failures >= retry.retries) throw error;
      failures += 1;
      summary.retries += 1;
      report('retrying');
      const delay = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** (failures - 1));
      await sleep(delay * (0.5 + Math.random() / 2), signal).catch(() => {
        throw aborted();
      });
    }
  }
}

function validate(connectorId: string, batch: SyncBatch): EpisodeInput[] {
  return batch.episodes.map((episode, index) => {
    const parsed = EpisodeInput.safeParse(episode);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new ConnectorError(
      'invalid_episode',
      `${connectorId} produced an invalid episode (item ${index}, key ${episode.idempotency_key}): ` +
        `${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
    );
  });
}

/**
 * Commits a connector batch. A batch above the commit size is split; every part but the last
 * keeps the previous cursor, so a crash between parts resumes before the batch (and re-reads
 * it as duplicates) rather than after it (and loses its tail).
 */
async function commitBatch(
  sink: ConnectorSink,
  episodes: EpisodeInput[],
  previousCursor: JsonValue | null,
  cursor: JsonValue,
  maxCommit: number,
  summary: RunSummary,
): Promise<void> {
  if (episodes.length === 0) {
    await commitDroppingConflicts(sink, [], cursor, summary);
    return;
  }
  for (let start = 0; start < episodes.length; start += maxCommit) {
    const part = episodes.slice(start, start + maxCommit);
    const last = start + maxCommit >= episodes.length;
    await commitDroppingConflicts(sink, part, last ? cursor : previousCursor, summary);
  }
}

/**
 * A key conflict rejects the whole transaction; the conflicting item is dropped, recorded and
 * the rest resubmitted. Its stored episode stays the truth for that key: a conflict means the
 * connector's recipe (or the source) changed, which a person must look at.
 */
async function commitDroppingConflicts(
  sink: ConnectorSink,
  episodes: EpisodeInput[],
  cursor: JsonValue | null,
  summary: RunSummary,
): Promise<void> {
  let pending = episodes;
  for (;;) {
    try {
      const results = await sink.commit(pending, cursor);
      for (const r of results) {
        if (r.status === 'created') {
          summary.created += 1;
          const episode = pending[r.index];
          if (episode && isRetraction(episode)) summary.retractions += 1;
        } else if (r.status === 'duplicate') summary.duplicates += 1;
        else if (r.status === 'refused') summary.refused += 1;
        else summary.erased += 1;
        if ((r.redacted ?? 0) > 0) summary.redacted += 1;
      }
      summary.submitted += pending.length;
      return;
    } catch (error) {
      if (!(error instanceof KeyConflictError) || pending[error.index] === undefined) throw error;
      summary.key_conflicts.push({ idempotency_key: error.idempotencyKey, stored_episode_id: error.storedEpisodeId });
      pending = pending.filter((_, i) => i !== error.index);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
