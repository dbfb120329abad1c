import type { Context } from 'hono';
import { CanonError } from '@canon/core';

export class UnsupportedMediaTypeError extends CanonError {
  constructor(message: string) {
    super('unsupported_media_type', message);
  }
}

export class MalformedJsonError extends CanonError {
  constructor(message: string) {
    super('malformed_json', message);
  }
}

/**
 * A JSON request body: the value `jsonGuard` parsed, or (a request it did not see) parsed here,
 * turning every way it can be wrong into a 4xx.
 */
export async function readJson(c: Context): Promise<unknown> {
  const guarded: unknown = c.get('json');
  if (guarded !== undefined) return guarded;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new UnsupportedMediaTypeError('send the body as application/json');
  }
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MalformedJsonError(`the body is not valid JSON: ${(err as Error).message}`);
  }
}
