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
