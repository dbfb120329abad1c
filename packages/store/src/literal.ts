import pg from 'pg';

/**
 * A string as an SQL literal, for the statements sent with the scope in one simple query (which
 * takes no parameters): quoted and escaped whole by `pg.escapeLiteral` (quotes doubled,
 * backslashes in an E'' literal). U+0000 is refused: PostgreSQL reads a query's text up to the
 * first NUL, and no literal may hold one. Every client string is refused at the door before it
 * gets here (`cleanString`, the JSON and URL guards); this keeps the rule where the text is made.
 */
export function sqlLiteral(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('U+0000 cannot be written as an SQL literal');
  return pg.escapeLiteral(value);
}
