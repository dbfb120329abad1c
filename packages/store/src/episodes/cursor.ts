const CURSOR = /^(\d{1,20})\.(\d{1,19})$/;

/** The largest transaction id (xid8) and position (bigint) PostgreSQL can hold. */
const MAX_TX = 18_446_744_073_709_551_615n;

const MAX_POSITION = 9_223_372_036_854_775_807n;

/** A cursor names a place in the log only when both of its numbers fit their columns. */
export function parseCursor(after: string): { tx: string; position: string } | null {
  const m = CURSOR.exec(after);
  if (!m) return null;
  const tx = BigInt(m[1]!);
  const position = BigInt(m[2]!);
  if (tx > MAX_TX || position > MAX_POSITION) return null;
  // Written back in decimal: PostgreSQL reads an xid8 with a leading zero as octal ("01707" is
  // 967), so "01707.10" named another place than "1707.10" does.
  return { tx: tx.toString(), position: position.toString() };
}
