import type pg from 'pg';

/**
 * Runs fn in one read-only snapshot (REPEATABLE READ): every query sees the database as of the
 * first one, whatever commits meanwhile. Nothing fn does can write.
 */
export async function inSnapshot<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const tx = await pool.connect();
  try {
    await tx.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const out = await fn(tx);
    await tx.query('COMMIT');
    return out;
  } catch (err) {
    await tx.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    tx.release();
  }
}
