import type { MiddlewareHandler } from 'hono';
import { jsonFault, jsonTextTooDeep, LIMITS, stringFault } from '@canon/core';
import type { AppEnv } from './auth.js';
import { problem } from './problem.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Whether the API reads a body of this method (never a GET's, a HEAD's or an OPTIONS'). */
export const readsBody = (method: string): boolean => BODY_METHODS.has(method);

/**
 * Path and query parameters as a client can send them: percent-encoding that decodes, and every
 * decoded string well-formed without U+0000 — refused here, with the parameter named, before a
 * route or PostgreSQL sees it.
 */
export const urlGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  const segments = url.pathname.split('/');
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return problem(c, 'validation', `the path segment "${segment.slice(0, 64)}" is not valid percent-encoding`, { issues: [{ index: 0, path: 'path', message: 'not valid percent-encoding' }] });
    }
    const fault = stringFault(decoded);
    if (fault) return problem(c, 'validation', `path: ${fault}`, { issues: [{ index: 0, path: 'path', message: fault }] });
  }
  let params: URLSearchParams;
  try {
    // URLSearchParams replaces bad escapes rather than throwing; decode by hand to see them.
    for (const pair of url.search.slice(1).split('&')) if (pair) decodeURIComponent(pair.replace(/\+/g, ' '));
    params = url.searchParams;
  } catch {
    return problem(c, 'validation', 'the query string is not valid percent-encoding', { issues: [{ index: 0, path: 'query', message: 'not valid percent-encoding' }] });
  }
  for (const [name, value] of params) {
    const fault = stringFault(name) ?? stringFault(value);
    if (fault) return problem(c, 'validation', `query.${name.slice(0, 64)}: ${fault}`, { issues: [{ index: 0, path: `query.${name.slice(0, 64)}`, message: fault }] });
  }
  await next();
};

/**
 * Any body sent to the API: JSON (or a 415), nested at most LIMITS.jsonDepth levels, every string
 * well-formed. The text is read and parsed once here; `readJson` hands the routes that value.
 */
export const jsonGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!readsBody(c.req.method)) return next();
  const type = c.req.header('content-type');
  const text = await c.req.text();
  // No body at all, whatever the content type says (clients set it on every request, a DELETE's
  // too): a route that needs one says so itself (`readJson`, its schema).
  if (text.length === 0) return next();
  if (type === undefined || !JSON_TYPE.test(type)) {
    return problem(c, 'unsupported_media_type', `send the body as application/json${type ? `, not ${type.slice(0, 100)}` : ''}`);
  }
  if (jsonTextTooDeep(text, LIMITS.jsonDepth)) {
    return problem(c, 'validation', `body: is nested deeper than ${LIMITS.jsonDepth} levels`, { issues: [{ index: 0, path: 'body', message: `nested deeper than ${LIMITS.jsonDepth} levels` }] });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return problem(c, 'malformed_json', `the body is not valid JSON: ${(err as Error).message}`);
  }
  const fault = jsonFault(parsed, LIMITS.jsonDepth);
  if (fault) {
    const path = fault.path === '' ? 'body' : fault.path;
    return problem(c, 'validation', `${path}: ${fault.message}`, { issues: [{ index: 0, path, message: fault.message }] });
  }
  // The route reads this value (readJson) instead of parsing the text again: a batch of 1,000
  // episodes is parsed once, and one tree of it is garbage afterwards, not two.
  c.set('json', parsed);
  await next();
};
