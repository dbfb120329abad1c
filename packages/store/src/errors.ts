/**
 * SQLSTATEs the store translates or retries. Everything else propagates with its cause.
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export const SQLSTATE = Object.freeze({
  uniqueViolation: '23505',
  restrictViolation: '23001',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  queryCanceled: '57014',
  undefinedTable: '42P01',
  characterNotInRepertoire: '22021',
  untranslatableCharacter: '22P05',
});

export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** Only these are safe to retry as a whole transaction: the server rolled it back for us. */
export function isRetryable(err: unknown): boolean {
  const code = sqlState(err);
  return code === SQLSTATE.serializationFailure || code === SQLSTATE.deadlockDetected;
}

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * 57P01 admin shutdown, 57P02 crash shutdown (a backend died and the server resets), 57P03 cannot
 * connect now (starting up, recovering).
 */
const UNAVAILABLE_STATES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03']);
/** Socket errors of a database that cannot be reached. */
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/**
 * What pg and pg-pool say, with no code, when a connection is lost or none could be had in
 * time. They are matched on their message because the libraries give them nothing else.
 */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'the database system is',
];

/**
 * True when an error says the database is unreachable, not that a request or a statement was
 * wrong: the caller answers "unavailable, retry" instead of "internal error". Looks through an
 * error's `cause` chain and an AggregateError's errors (a connect to `localhost` tries ::1 and
 * 127.0.0.1 and fails with both).
 */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const code = sqlState(err);
  if (code && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  const message = err instanceof Error ? err.message : '';
  if (UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isUnavailable(e, depth + 1))) return true;
  return 'cause' in err && isUnavailable(err.cause, depth + 1);
}
