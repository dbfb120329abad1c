/**
 * A value as a `json` column gives it back: what `JSON.parse` makes of the text `JSON.stringify`
 * stored. Members keep their order, members JSON omits are dropped, holes and `undefined` in arrays
 * become null, non-finite numbers become null and -0 becomes 0.
 *
 * A compile folds the claims it has just written without reading them back, and must fold
 * exactly what the table would have answered: a fold is a function of its input's values, but
 * some of what it writes (a reason spelling a value with `JSON.stringify`, a search text listing
 * qualifiers) follows the order of members. The claims column is `json` (migration 0028), which
 * keeps the order as sent; before it, a `jsonb` column reordered members, and this copy did too.
 */
export function storedForm<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number') return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
    return value;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copy(toJSON.call(value));
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) out[i] = omitted(value[i]) ? null : copy(value[i]);
    return out;
  }
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(record)) {
    const x = record[k];
    if (!omitted(x)) out[k] = copy(x);
  }
  return out;
}

function omitted(x: unknown): boolean {
  return x === undefined || typeof x === 'function' || typeof x === 'symbol';
}
