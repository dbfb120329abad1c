import type { Context } from 'hono';
import { CanonError } from '@canon/core';
import type { AppEnv } from './auth.js';
import { JSON_TYPE } from './door.js';

export class UnsupportedMediaTypeError extends CanonError {
  constructor(message: string) {
    super('unsupported_media_type', message);
  }
}

/**
 * A JSON request body under /v1: the value `jsonGuard` parsed and checked (it answers malformed,
 * too deep or ill-formed bodies itself). Unset only when no body came at all: with a JSON content
 * type that is an empty JSON text, malformed; without one, a body of the wrong type, as before.
 */
export async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const body = c.get('json');
  if (body !== undefined) return body;
  if (JSON_TYPE.test(c.req.header('content-type') ?? '')) throw new CanonError('malformed_json', 'the body is empty: send a JSON value');
  throw new UnsupportedMediaTypeError('send the body as application/json');
}
