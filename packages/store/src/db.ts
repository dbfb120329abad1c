import pg from 'pg';

/**
 * The one-method database port every SQL operation takes: a pool, a pooled client, or a
 * client inside a caller's transaction all satisfy it, so operations compose into one
 * transaction without knowing about it.
 */
export interface Sql {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

// timestamptz → ISO string at millisecond precision, never a JS Date: a Date loses the
// original offset form and invites local-time bugs; the domain works in ISO strings.
const TIMESTAMPTZ_OID = 1184;
pg.types.setTypeParser(TIMESTAMPTZ_OID, (v) => new Date(v).toISOString());
// int8 → number; Canon's bigints (positions, sequences) stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function createPool(connectionString: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 10, ...options });
  // An idle client's error (e.g. the server restarting) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs fn in a transaction on one client of the pool; rolls back on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export type { Pool, PoolClient } from 'pg';
