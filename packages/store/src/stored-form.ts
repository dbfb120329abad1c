/**
 * A value as a jsonb column gives it back: what `JSON.parse` makes of PostgreSQL's text for the
 * value once it has been stored from `JSON.stringify`. Object members come in jsonb's order
 * (shorter keys first by UTF-8 length, then bytewise), members JSON omits are dropped, holes and
 * `undefined` in arrays become null, and -0 becomes 0.
 *
 * A compile folds the claims it has just written without reading them back, and must fold
 * exactly what the table would have answered: a fold is a function of its input's values, but
 * some of what it writes (a reason spelling a value with `JSON.stringify`, a search text listing
 * qualifiers) follows the order of members, and that order is jsonb's for claims read back.
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
  for (const k of jsonbOrder(Object.keys(record))) {
    const x = record[k];
    if (!omitted(x)) out[k] = copy(x);
  }
  return out;
}

function omitted(x: unknown): boolean {
  return x === undefined || typeof x === 'function' || typeof x === 'symbol';
}

/**
 * Keys in jsonb's order. Claims come in a few shapes (the claim, its fact key, a settled
 * reference), so the orders of the shapes seen last are kept and a shape is recognized by
 * comparing its keys, which are the engine's interned strings, one by one.
 * (JavaScript lists integer-like keys first whatever the insertion order: an object with such
 * keys cannot be built in jsonb's order, and parsing the stored text has the same limit.)
 */
const SHAPES = 16;
const shapes: Array<{ keys: string[]; order: string[] }> = [];
function jsonbOrder(keys: string[]): string[] {
  for (let s = 0; s < shapes.length; s += 1) {
    const known = shapes[s]!;
    if (known.keys.length !== keys.length) continue;
    let same = true;
    for (let i = 0; same && i < keys.length; i += 1) same = known.keys[i] === keys[i];
    if (same) return known.order;
  }
  const order = [...keys].sort(compareJsonbKeys);
  if (shapes.length >= SHAPES) shapes.pop();
  shapes.unshift({ keys, order });
  return order;
}

function compareJsonbKeys(a: string, b: string): number {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length - bb.length || Buffer.compare(ba, bb);
}
