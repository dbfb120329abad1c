import type { Sql } from '../db.js';
import type { NewChange } from './rows.js';

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
