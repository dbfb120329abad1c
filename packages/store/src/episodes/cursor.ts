const CURSOR = /^(\d{1,20})\.(\d{1,19})$/;

/** The largest transaction id (xid8) and position (bigint) PostgreSQL can hold. */
const MAX_TX = 18_446_744_073_709_551_615n;

const MAX_POSITION = 9_223_372_036_854_775_807n;

/** A cursor names a place in the log only when both of its numbers fit their columns. */
export function parseCursor(after: string): { tx: string; position: string } | null {
  const m = CURSOR.exec(after);
  if (!m || BigInt(m[1]!) > MAX_TX || BigInt(m[2]!) > MAX_POSITION) return null;
  return { tx: m[1]!, position: m[2]! };
}
