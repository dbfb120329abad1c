import { lengthPrefixed, xxh64 } from '@canon/core';

export class KeyPartError extends TypeError {
  override readonly name = 'KeyPartError';
}

/**
 * An idempotency key from its identity parts (design §6). Parts are length-prefixed before
 * hashing, so `["a|b"]` and `["a", "b"]` never give the same key. A missing part throws instead
 * of hashing as "undefined": such a key would silently merge distinct events.
 *
 * Keys must be built only from what the source says about the item, never from the clock.
 */
export function key(parts: readonly string[]): string {
  if (parts.length === 0) throw new KeyPartError('a key needs at least one part');
  parts.forEach((part: unknown, index) => {
    if (part === undefined || part === null) {
      throw new KeyPartError(`key part ${index} is ${part === null ? 'null' : 'undefined'}`);
    }
    if (typeof part !== 'string') {
      throw new KeyPartError(`key part ${index} is a ${typeof part}, not a string`);
    }
  });
  return xxh64(lengthPrefixed(parts));
}
