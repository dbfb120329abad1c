import type { Sql } from '../db.js';

/**
 * Which of these singleton keys have a job of the queue waiting to start (`created`): a job
 * inserted under such a key on a stately queue would be dropped, and the waiting one will read
 * whatever is committed before it starts. Read from pg-boss's table (its partial index on
 * `(name, singleton_key)` for jobs not yet active), which the roles of a transaction may read.
 */
export async function queuedJobKeys(sql: Sql, queue: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await sql.query<{ k: string }>(
    `SELECT singleton_key AS k FROM pgboss.job
     WHERE name = $1 AND state = 'created' AND singleton_key = ANY($2::text[])`,
    [queue, keys],
  );
  return new Set(rows.map((r) => r.k));
}
