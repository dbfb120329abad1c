import type { Context, MiddlewareHandler } from 'hono';

/**
 * Every JSON answer leaves as UTF-8 bytes, not as a string. `JSON.stringify` returns a string V8
 * has built from pieces and not yet joined. Given a string body, the Node adapter asks it for its
 * length in bytes, which joins it (0.6–0.7 ms for the 190 KB of a recall page with candidates),
 * and the socket then encodes it once more as it writes. Encoded here, the string is joined and
 * encoded in one pass (0.7 ms for the same page) and the adapter sends the buffer as it is, its
 * length known. The two kinds of answer alternated on one server, three runs of 600 reads of that
 * page: 0.4–0.6 ms sooner at the median; at p95 0.6 and 1 ms sooner in two, 0.6 ms later in one.
 */
function jsonAsUtf8(this: Context, object: unknown, arg?: unknown, headers?: Record<string, string>): Response {
  const body = encodeJson(object);
  // Both take a status or a ResponseInit as their second argument; Hono types them apart. An
  // `undefined` (never an answer of Canon's) has no body, as Hono's own `json` gives it.
  const respond = this.newResponse as (body: Uint8Array | null, arg?: unknown, headers?: Record<string, string>) => Response;
  return respond(body, arg, { 'Content-Type': 'application/json', ...headers });
}

export const jsonAsBytes: MiddlewareHandler = async (c, next) => {
  // Called as `c.json(…)`, so `this` is the request's context: one function for every request.
  c.json = jsonAsUtf8 as Context['json'];
  await next();
};

/**
 * Joining the text of an answer makes one string of its whole length, and V8 puts a string of
 * more than 128 KiB (131,072 Latin-1 characters) in its large-object space: fresh pages mapped
 * for it and freed at the next collection. On the benchmark machine that allocation, not the
 * copy, is most of the cost: stringify and encode of 120 K characters 0.26 ms, of 164 K 1.34 ms.
 * An answer estimated above this many characters is encoded a piece at a time instead, no piece
 * near that size.
 */
const PIECES_ABOVE = 96 * 1024;

/** `JSON.stringify(value)` as UTF-8, byte for byte; null where it gives `undefined`. */
export function encodeJson(value: unknown): Uint8Array | null {
  if (isPlain(value)) {
    const pieces = jsonPieces(value);
    if (pieces) return encodePieces(pieces);
  }
  const text = JSON.stringify(value);
  return text === undefined ? null : Buffer.from(text);
}

/** An object `JSON.stringify` serializes as its own keys, not through a `toJSON`. */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || hasToJSON(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `JSON.stringify` would call the value's `toJSON` with its key (its own call passes ''). */
function hasToJSON(value: unknown): boolean {
  return typeof value === 'bigint' || (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function');
}

/**
 * The JSON text of `object` in pieces whose concatenation is `JSON.stringify(object)`: each key
 * with its value, and each element of an array value on its own (a page's memories). Null when the
 * answer is estimated small (from each array's first element), or when a value has a `toJSON`,
 * whose key argument a piece serialized alone would not pass.
 */
function jsonPieces(object: Record<string, unknown>): string[] | null {
  const keys = Object.keys(object);
  let estimate = 0;
  // Each array's first element as the estimate serialized it: its piece, not serialized again.
  const firsts = new Map<string, string>();
  for (const key of keys) {
    const value = object[key];
    if (hasToJSON(value)) return null;
    if (Array.isArray(value) && value.length > 0 && !hasToJSON(value[0])) {
      const first = JSON.stringify(value[0]) ?? 'null';
      firsts.set(key, first);
      estimate += first.length * value.length;
    }
  }
  if (estimate <= PIECES_ABOVE) return null;
  const pieces: string[] = [];
  for (const key of keys) {
    const value = object[key];
    if (Array.isArray(value)) {
      const open = `${pieces.length === 0 ? '{' : ','}${JSON.stringify(key)}:[`;
      pieces.push(open);
      for (let i = 0; i < value.length; i += 1) {
        const element: unknown = value[i];
        if (hasToJSON(element)) return null;
        // An element JSON has no text for (undefined, a function, a symbol) is `null` in an array.
        const text = (i === 0 ? firsts.get(key) : undefined) ?? JSON.stringify(element) ?? 'null';
        pieces.push(i === 0 ? text : `,${text}`);
      }
      pieces.push(']');
    } else {
      // A key JSON has no text for is left out, as `JSON.stringify` leaves it.
      const text = JSON.stringify(value);
      if (text !== undefined) pieces.push(`${pieces.length === 0 ? '{' : ','}${JSON.stringify(key)}:${text}`);
    }
  }
  pieces.push(pieces.length === 0 ? '{}' : '}');
  return pieces;
}

function encodePieces(pieces: readonly string[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += out.write(piece, at);
  return out;
}
