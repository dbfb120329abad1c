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

export const CHANGE_COLUMNS = `tx_id::text || '.' || position AS cursor, memory_id, subject, key, predicate, scope, change, before, after,
  episode_id, compile_run_id, to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS changed_at`;
