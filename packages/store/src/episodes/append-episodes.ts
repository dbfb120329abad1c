import type { Envelope } from '@canon/core';
import type { Sql } from '../db.js';
import { BATCH_COUNT } from '../pending/batch-count.js';
import { jsonColumn, jsonTextsColumn, rowsFromJsonColumns, uniformOrColumn } from '../json-columns.js';
import { findEpisodesByKeys } from './find-episodes-by-keys.js';
import { type LoggedEpisode, keyOf } from './rows.js';

export interface NewEpisode {
  id: string;
  envelope: Envelope;
  content_hash: string;
  /** The API key that appends it; kept beside the envelope, not in it. */
  actor_key: string | null;
  /**
   * The effective time to store when the envelope gives none (an import keeps the one its log
   * defaulted to); absent: the ingest instant.
   */
  occurred_at_default?: string | null;
}

export interface AppendOptions {
  /** Mark every episode this statement inserts as waiting for a compile of its subject. */
  pending?: boolean;
}

export interface AppendResult {
  /** Ids of rows this statement inserted, by `source \u0000 key`. */
  inserted: Set<string>;
  /** Rows that already existed for keys of the batch (another transaction, or earlier). */
  existing: LoggedEpisode[];
}

// The batch's columns, each one JSON array (`rowsFromJsonColumns`), the bodies as JSON elements.
const COLUMN_KINDS = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'json', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'] as const;
const EPISODE_ROWS = rowsFromJsonColumns(2, COLUMN_KINDS, true);
/** The parameter after the columns: the first of `uniformOrColumn`'s values, in this order. */
const UNIFORM_FIRST = 2 + COLUMN_KINDS.length;
const UNIFORM_COLUMNS = [
  ['source', (e: NewEpisode) => e.envelope.source],
  ['subject', (e: NewEpisode) => e.envelope.subject],
  ['scope', (e: NewEpisode) => e.envelope.scope],
  ['owner', (e: NewEpisode) => e.envelope.owner],
  ['kind', (e: NewEpisode) => e.envelope.kind],
  ['occurred_at', (e: NewEpisode) => e.envelope.occurred_at],
  ['observed_at', (e: NewEpisode) => e.envelope.observed_at],
  ['sequence', (e: NewEpisode) => e.envelope.sequence],
  ['snapshot', (e: NewEpisode) => e.envelope.snapshot],
  ['actor_role', (e: NewEpisode) => e.envelope.actor.role],
  ['actor_user', (e: NewEpisode) => e.envelope.actor.user],
  ['actor_key', (e: NewEpisode) => e.actor_key],
  ['source_ref', (e: NewEpisode) => e.envelope.source_ref],
  ['occurred_default', (e: NewEpisode) => e.occurred_at_default ?? null],
] as const;
type UniformColumn = (typeof UNIFORM_COLUMNS)[number][0];

/**
 * One set-based statement per batch: a JSON array per column rather than thousands of bind
 * parameters. Rows are inserted in (source, key) order so two concurrent batches over the same
 * keys take their unique-index locks in the same order and cannot deadlock. ON CONFLICT DO
 * NOTHING waits for a concurrent inserter of the same key and then skips; the follow-up read
 * (a fresh READ COMMITTED snapshot) sees that committed row for the comparison.
 */
export async function appendEpisodes(sql: Sql, workspaceId: string, batch: NewEpisode[], options: AppendOptions = {}): Promise<AppendResult> {
  const rows = [...batch].sort((a, b) =>
    a.envelope.source === b.envelope.source
      ? cmp(a.envelope.idempotency_key, b.envelope.idempotency_key)
      : cmp(a.envelope.source, b.envelope.source),
  );
  const col = (f: (e: NewEpisode) => unknown) => jsonColumn(rows, f);
  // Columns a batch usually holds one value in, sent once when so (`uniformOrColumn`); the rest
  // differ from row to row.
  const uniform = UNIFORM_COLUMNS.map(([, of]) => uniformOrColumn(rows, of));
  const at = (name: UniformColumn) => UNIFORM_COLUMNS.findIndex(([n]) => n === name);
  const u = (name: UniformColumn) => `coalesce($${UNIFORM_FIRST + at(name)}::text, u.${name})`;
  const column = (name: UniformColumn) => uniform[at(name)]![0];
  // With `pending`, the rows inserted are marked as waiting in the same statement (a data-modifying
  // CTE): one round trip less per batch, and each pending row takes its scope and owner from the
  // episode row just written. One row per subject carries how many the batch marked (BATCH_COUNT).
  // Each row names an episode this statement created (a fresh id), so none can be there already:
  // a plain insert, not ON CONFLICT's speculative one (its probe of the key first was 2–3 ms of
  // PostgreSQL's ~30 per 1,000-episode batch).
  const { rows: insertedRows } = await sql.query<{ source: string; idempotency_key: string }>(
    `${options.pending ? 'WITH ins AS (' : ''}INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body,
        occurred_at, occurred_at_defaulted, observed_at, sequence, lineage, snapshot,
        actor_role, actor_user, actor_key, source_ref, content_hash)
     SELECT $1, u.id::uuid, ${u('source')}, u.idempotency_key, ${u('subject')}, ${u('scope')}, ${u('owner')}, ${u('kind')}, u.body::jsonb,
        coalesce(${u('occurred_at')}::timestamptz, ${u('occurred_default')}::timestamptz, now()), ${u('occurred_at')} IS NULL,
        ${u('observed_at')}::timestamptz, ${u('sequence')}::bigint, u.lineage, ${u('snapshot')}::boolean,
        ${u('actor_role')}, ${u('actor_user')}, ${u('actor_key')}, ${u('source_ref')}, u.content_hash
     FROM ${EPISODE_ROWS} AS u(id, source, idempotency_key, subject, scope, owner, kind, body,
                 occurred_at, observed_at, sequence, lineage, snapshot,
                 actor_role, actor_user, actor_key, source_ref, content_hash, occurred_default, ord)
     ORDER BY u.ord
     ON CONFLICT (workspace_id, source, idempotency_key) DO NOTHING
     ${
       options.pending
         ? `RETURNING id, source, idempotency_key, subject, scope, owner),
     marked AS (INSERT INTO pending (workspace_id, subject, episode_id, scope, owner, batch_count)
                SELECT $1, subject, id, scope, owner, ${BATCH_COUNT} FROM ins WINDOW per_subject AS (PARTITION BY subject))
     SELECT source, idempotency_key FROM ins`
         : 'RETURNING source, idempotency_key'
     }`,
    [
      workspaceId,
      col((e) => e.id),
      column('source'),
      col((e) => e.envelope.idempotency_key),
      column('subject'),
      column('scope'),
      column('owner'),
      column('kind'),
      jsonTextsColumn(rows, (e) => JSON.stringify(e.envelope.body)),
      // A source that gave no time gets the ingest instant (now(), the transaction's time).
      column('occurred_at'),
      column('observed_at'),
      column('sequence'),
      col((e) => e.envelope.lineage),
      column('snapshot'),
      column('actor_role'),
      column('actor_user'),
      column('actor_key'),
      column('source_ref'),
      col((e) => e.content_hash),
      column('occurred_default'),
      ...uniform.map(([, value]) => value),
    ],
  );
  const inserted = new Set(insertedRows.map((r) => keyOf(r.source, r.idempotency_key)));
  const missing = rows.filter((e) => !inserted.has(keyOf(e.envelope.source, e.envelope.idempotency_key)));
  const existing = missing.length === 0 ? [] : await findEpisodesByKeys(sql, workspaceId, missing.map((e) => e.envelope));
  return { inserted, existing };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
