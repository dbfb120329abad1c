import pg from 'pg';
import { isRetryable } from './errors.js';

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

const TIMESTAMPTZ_OID = 1184;
const INT8_OID = 20;

/**
 * Canon's own type parsers, on its pools only (pg-boss shares the `pg` module and expects the
 * defaults): timestamptz → ISO string at millisecond precision, never a JS Date, since the
 * domain works in ISO strings; int8 → number, as positions and sequences stay far below 2^53.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID) return isoOfTimestamptz;
    if (oid === INT8_OID) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * A timestamptz as PostgreSQL writes it, as an ISO string at millisecond precision, the fraction
 * cut (as `Date` cuts it) not rounded. A value in UTC with a four-digit year — what a session in
 * UTC reads — is rearranged as text: parsing it into a `Date` cost a microsecond a value, a third
 * of a second for the 100,000 episodes of a first compile. Any other form goes through `Date`.
 */
export function isoOfTimestamptz(v: string): string {
  // "2026-12-05 07:14:04.006123+00": a space at 10, a dash at 4, seconds up to 19, then "+00".
  if (v.length >= 22 && v.length <= 29 && v.charCodeAt(4) === 45 && v.charCodeAt(10) === 32 && v.endsWith('+00')) {
    const fraction = v.length === 22 ? '000' : v.charCodeAt(19) === 46 ? (v.slice(20, v.length - 3) + '00').slice(0, 3) : null;
    if (fraction !== null) return `${v.slice(0, 10)}T${v.slice(11, 19)}.${fraction}Z`;
  }
  return new Date(v).toISOString();
}

export function createPool(connectionString: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 10, types, ...options });
  // An idle client's error (e.g. the server restarting) must not crash the process; neither may
  // a checked-out client's, which pg emits when the connection dies between two queries of a
  // transaction (its next query rejects, and that is where the caller learns of it).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    oneQueryAtATime(client);
  });
  return pool;
}

/**
 * A client's statements handed to node-postgres one at a time, in the order they were made. A
 * compile sends its next statements before the answer to the one before is read (they run in
 * order on the connection either way); node-postgres queued them itself, and warns on stderr that
 * it will stop doing so (pg@9). Each waits here for the one before to settle instead — the same
 * order and the same hand-offs, since node-postgres sent a queued statement only once the answer
 * before it was in. Callback-style calls (a pool's own `query`) pass through: they come only on a
 * client nothing else holds.
 */
function oneQueryAtATime(client: pg.PoolClient): void {
  // The class's method, looked up at each call: what a test spies on, or a tracer wraps, sees it.
  const proto = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
  const send = (...args: unknown[]) => proto.query.apply(client, args);
  let last: Promise<unknown> | null = null;
  let outstanding = 0;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if (typeof args[args.length - 1] === 'function' || typeof (args[0] as { submit?: unknown } | null)?.submit === 'function') return send(...args);
    const start = () => send(...args) as Promise<unknown>;
    // With nothing outstanding the statement goes now, as it would have: nothing can pass it.
    const run = outstanding === 0 || last === null ? start() : last.then(start, start);
    outstanding += 1;
    last = run.then(
      () => void (outstanding -= 1),
      () => void (outstanding -= 1),
    );
    return run;
  };
}

/**
 * A write that found its row changed since it was read (a conditional write that matched
 * nothing): the whole transaction is rerun, which rereads and recomputes — never a blind retry.
 */
export class StaleWriteError extends Error {}

/**
 * Runs fn in one transaction on one client of the pool; rolls back on any error. Rerun whole
 * only when PostgreSQL rolled it back for us (serialization failure, deadlock) or a conditional
 * write went stale.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>, attempts = 5, begin?: (tx: pg.PoolClient) => Promise<void>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const tx = await pool.connect();
    try {
      // `begin` opens the transaction with its settings in the same round trip (session/begin-*.ts).
      if (begin) await begin(tx);
      else await tx.query('BEGIN');
      const out = await fn(tx);
      await tx.query('COMMIT');
      return out;
    } catch (err) {
      await tx.query('ROLLBACK').catch(() => undefined);
      if (attempt >= attempts || !(err instanceof StaleWriteError || isRetryable(err))) throw err;
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
    } finally {
      tx.release();
    }
  }
}

export type { Pool, PoolClient } from 'pg';

/**
 * A read-only snapshot held across awaits (a streamed export): every read through `tx` sees the
 * database as it was at the first. `end` commits (nothing was written); `release` gives the
 * connection back, rolling back first if `end` was never reached.
 */
export async function openReadSnapshot(pool: pg.Pool): Promise<{ tx: pg.PoolClient; end(): Promise<void>; release(): Promise<void> }> {
  const tx = await pool.connect();
  let done = false;
  try {
    await tx.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (err) {
    tx.release();
    throw err;
  }
  return {
    tx,
    async end() {
      await tx.query('COMMIT');
      done = true;
    },
    async release() {
      if (!done) await tx.query('ROLLBACK').catch(() => undefined);
      tx.release();
    },
  };
}

/** Whether the database answers a query now (readiness, supervision). */
export function databaseAnswers(pool: Sql): Promise<boolean> {
  return pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
}

/** Creates a database unless it exists; a concurrent creator winning the race is not an error. */
export async function ensureDatabase(connectionString: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((err: unknown) => {
        // Another process created it first: duplicate_database, or, when the two commands ran
        // at once, a unique violation on the catalog's name index.
        const code = (err as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw err;
      });
    }
  } finally {
    await client.end();
  }
}
