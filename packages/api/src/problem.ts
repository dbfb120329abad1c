import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { CanonError, UnavailableError, type ProblemType } from '@canon/core';
import { isUnavailable } from '@canon/runtime';

/** Problem types that only the HTTP layer produces. */
export type HttpProblemType = ProblemType | 'not_acceptable' | 'internal';

const STATUS: Record<HttpProblemType, number> = {
  validation: 400,
  malformed_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_acceptable: 406,
  unsupported_media_type: 415,
  key_conflict: 409,
  conflict: 409,
  cursor_moved: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  busy: 503,
  unavailable: 503,
  secret_refused: 400,
  export_invalid: 400,
  policies_differ: 409,
  workspace_mismatch: 409,
  internal: 500,
};

const TITLE: Record<HttpProblemType, string> = {
  validation: 'Invalid request',
  malformed_json: 'Malformed JSON',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  not_acceptable: 'Not acceptable',
  unsupported_media_type: 'Unsupported media type',
  key_conflict: 'Idempotency key conflict',
  conflict: 'Conflict',
  cursor_moved: 'Connector cursor moved',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  busy: 'Busy, retry later',
  unavailable: 'Service unavailable, retry later',
  secret_refused: 'Secret refused',
  export_invalid: 'Not a whole, untouched export',
  policies_differ: 'Policies differ',
  workspace_mismatch: 'Workspace mismatch',
  internal: 'Internal error',
};

/** The stable `type` URI of a problem; clients switch on it, never on the title. */
export const problemTypeUri = (type: HttpProblemType) => `urn:canon:problem:${type}`;

export function problem(
  c: Context,
  type: HttpProblemType,
  detail: string,
  extra: Record<string, unknown> = {},
): Response {
  const status = STATUS[type];
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (type === 'unauthorized') headers['www-authenticate'] = 'Bearer';
  if (type === 'busy' || type === 'unavailable') headers['retry-after'] = String(extra['retry_after'] ?? 1);
  // A stale conditional write says what the memory is now, its ETag as every other answer does.
  if (type === 'precondition_failed' && typeof extra['current_etag'] === 'string') headers['etag'] = `"${extra['current_etag']}"`;
  return new Response(
    JSON.stringify({ type: problemTypeUri(type), title: TITLE[type], status, detail, instance: c.req.path, ...extra }),
    { status, headers },
  );
}

export function problemFromError(c: Context, err: unknown): Response {
  if (err instanceof CanonError) return problem(c, err.type, err.message, err.details);
  // The database went away (or is not back yet): the request did nothing and may be retried, so
  // say that — a 500 would tell a client to give up and an operator to look for a bug.
  if (isUnavailable(err)) {
    const unavailable = new UnavailableError();
    return problem(c, unavailable.type, unavailable.message, unavailable.details);
  }
  // Hono's JSON validator (behind every zod-openapi body) throws a 400 HTTPException for a body
  // that does not parse: a client error, not an internal one.
  if (err instanceof HTTPException && err.status === 400) return problem(c, 'malformed_json', err.message || 'the body is not valid JSON');
  if (err instanceof HTTPException && err.status === 415) return problem(c, 'unsupported_media_type', 'send the body as application/json');
  if (err instanceof HTTPException && err.status === 413) return problem(c, 'payload_too_large', err.message || 'the body is too large');
  if (err instanceof HTTPException && err.status < 500) return problem(c, 'validation', err.message || 'the request is not valid');
  // Never leak internals; the server log has the cause.
  return problem(c, 'internal', 'the server could not complete the request');
}
