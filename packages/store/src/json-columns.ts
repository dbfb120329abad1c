/**
 * Rows sent as columns, each column one JSON array parameter, zipped back into rows by position
 * in one `ROWS FROM`. Rather than PostgreSQL array parameters: node-postgres builds an array
 * literal element by element, escaping each with two regular-expression passes and concatenating
 * the literal a piece at a time, where `JSON.stringify` writes a column in one native pass. For a
 * compile's claims, blocks and projections the array literals were a fifth of everything the
 * compile allocated (the 10,000-way dispute: 454 → 359 MB with all three sent as JSON, its compile
 * 2.11–2.26 → 1.71–1.75 s), and PostgreSQL reads the JSON arrays with less CPU than the literals
 * (a first compile of 100k episodes: 14.2–15.0 → 13.3–13.9 s of its backends' CPU).
 *
 * A `text` column's elements come back as text (`json_array_elements_text`; JSON null is SQL
 * NULL), to be cast to the column's type; a `json` column's elements come back as `json`, each
 * the exact text it was sent as.
 */
export function rowsFromJsonColumns(firstParam: number, kinds: ReadonlyArray<'text' | 'json'>, ordinality = false): string {
  const fns = kinds.map((kind, i) => `${kind === 'json' ? 'json_array_elements' : 'json_array_elements_text'}($${firstParam + i}::json)`);
  return `ROWS FROM (${fns.join(', ')})${ordinality ? ' WITH ORDINALITY' : ''}`;
}

/** One column of the rows as the JSON array parameter `rowsFromJsonColumns` reads. */
export function jsonColumn<T>(rows: readonly T[], of: (row: T) => unknown): string {
  return JSON.stringify(rows.map(of));
}

/**
 * One `json` column of the rows whose elements are JSON texts already (a block's canonical JSON,
 * an episode's body): the texts joined into the array, nothing escaped again, each stored as sent.
 */
export function jsonTextsColumn<T>(rows: readonly T[], of: (row: T) => string): string {
  return `[${rows.map(of).join(',')}]`;
}

/**
 * A column most batches hold one value in throughout (a source, a scope, a null): that value as
 * one parameter beside an empty array, else the array beside a null. Read as
 * `coalesce(<value>, <element>)` — `ROWS FROM` reads an empty array as nulls on every row — it is
 * the row's value either way, and the statement neither sends nor parses a thousand copies of it.
 */
export function uniformOrColumn<T>(rows: readonly T[], of: (row: T) => string | number | boolean | null): [column: string, value: string | number | boolean | null] {
  const first = rows.length === 0 ? null : of(rows[0]!);
  for (let i = 1; i < rows.length; i += 1) if (of(rows[i]!) !== first) return [jsonColumn(rows, of), null];
  return ['[]', first];
}
