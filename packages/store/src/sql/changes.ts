import type { Sql } from '../db.js';
import { parseCursor } from './list-episodes.js';

/** One memory's view on one side of a change: its status and the values holding (every side, when disputed). */
export interface ChangeSide {
  status: string;
  values: unknown[];
}

export interface NewChange {
  memory_id: string;
  subject: string;
  key: string;
  predicate: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  change: string;
  before: ChangeSide | null;
  after: ChangeSide | null;
  episode_id: string | null;
}

/** A change as the feed reads it; `cursor` is its place in commit order (`<tx>.<position>`, as the log's). */
export interface ChangeRow extends Omit<NewChange, 'owner'> {
  cursor: string;
  compile_run_id: string | null;
  changed_at: string;
}

/** Rows per statement: one JSON array each, so no parameter grows with a compile's size. */
const INSERT_SLICE = 1000;

/** Records a compile's changes in its transaction (the rows commit, or vanish, with its memories). */
export async function insertChanges(sql: Sql, workspaceId: string, compileRunId: string | null, rows: readonly NewChange[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_SLICE) {
    await sql.query(
      `INSERT INTO changes (workspace_id, memory_id, subject, key, predicate, scope, owner, change, before, after, episode_id, compile_run_id)
       SELECT $1, c->>'memory_id', c->>'subject', c->>'key', c->>'predicate', c->>'scope', c->>'owner', c->>'change',
         nullif(c->'before', 'null'::jsonb), nullif(c->'after', 'null'::jsonb), (c->>'episode_id')::uuid, $2
       FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS x(c, n) ORDER BY n`,
      [workspaceId, compileRunId, JSON.stringify(rows.slice(i, i + INSERT_SLICE))],
    );
  }
}

export interface ChangesQuery {
  /** A cursor from the feed (`<tx>.<position>`), or null for its start. */
  after: string | null;
  subject?: string | undefined;
  predicate?: string | undefined;
  limit: number;
}

export type ChangesPage = { ok: true; changes: ChangeRow[] } | { ok: false; reason: 'bad_cursor' };

const CHANGE_COLUMNS = `tx_id::text || '.' || position AS cursor, memory_id, subject, key, predicate, scope, change, before, after,
  episode_id, compile_run_id, to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS changed_at`;

/**
 * A page of the feed after a cursor, in commit order, as far as it is settled: only rows of
 * transactions older than the oldest one still in flight, so a compile that commits later can
 * never land behind a cursor a reader already holds. What the transaction's scope may not see
 * (another user's personal memories) is left out by row-level security.
 */
export async function changesAfter(sql: Sql, workspaceId: string, q: ChangesQuery): Promise<ChangesPage> {
  let tx = '0';
  let position = '0';
  if (q.after !== null) {
    const c = parseCursor(q.after);
    if (!c) return { ok: false, reason: 'bad_cursor' };
    tx = c.tx;
    position = c.position;
  }
  const { rows } = await sql.query<ChangeRow>(
    `SELECT ${CHANGE_COLUMNS} FROM changes
     WHERE workspace_id = $1
       AND ($2::text IS NULL OR subject = $2)
       AND ($3::text IS NULL OR predicate = $3)
       AND (tx_id, position) > ($4::text::xid8, $5::bigint)
       AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY tx_id, position
     LIMIT $6`,
    [workspaceId, q.subject ?? null, q.predicate ?? null, tx, position, q.limit],
  );
  return { ok: true, changes: rows };
}

/** One change by its cursor, as the transaction's scope may see it; null when gone (erased) or hidden. */
export async function changeAt(sql: Sql, workspaceId: string, cursor: string): Promise<ChangeRow | null> {
  const c = parseCursor(cursor);
  if (!c) return null;
  const { rows } = await sql.query<ChangeRow>(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE workspace_id = $1 AND tx_id = $2::text::xid8 AND position = $3::bigint`, [
    workspaceId,
    c.tx,
    c.position,
  ]);
  return rows[0] ?? null;
}

/**
 * Where the settled feed of a workspace ends now: a webhook created here receives what comes
 * after. A row of a transaction still in flight sorts after it (its tx_id is not below xmin).
 */
export async function changesHead(sql: Sql, workspaceId: string): Promise<{ tx: string; position: string }> {
  const { rows } = await sql.query<{ tx: string; position: string }>(
    `SELECT tx_id::text AS tx, position::text AS position FROM changes
     WHERE workspace_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY tx_id DESC, position DESC LIMIT 1`,
    [workspaceId],
  );
  return rows[0] ?? { tx: '0', position: '0' };
}

/** Erasure: the rows of these subjects carry values of what is erased (and name the subjects). */
export async function deleteChangesOfSubjects(sql: Sql, workspaceId: string, subjects: readonly string[]): Promise<number> {
  if (subjects.length === 0) return 0;
  const { rowCount } = await sql.query('DELETE FROM changes WHERE workspace_id = $1 AND subject = ANY($2::text[])', [workspaceId, subjects]);
  return rowCount ?? 0;
}

/** Retention: the rows of every workspace changed before this instant. */
export async function deleteChangesBefore(sql: Sql, before: string): Promise<number> {
  const { rowCount } = await sql.query('DELETE FROM changes WHERE changed_at < $1', [before]);
  return rowCount ?? 0;
}
