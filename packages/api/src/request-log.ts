import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '@canon/runtime';
import type { AppEnv } from './auth.js';

/**
 * A client's request id is kept when it is a plain token (letters, digits, `._:-`, at most 128):
 * it then ties the client's logs to ours. Anything else — spaces, quotes, control characters,
 * something shaped like a Canon key — is replaced by a fresh UUID, so a header cannot forge log
 * fields or put a secret in the log.
 */
const SANE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const KEY_SHAPED = /^canon_/i;

export function requestId(header: string | undefined): string {
  return header && SANE_ID.test(header) && !KEY_SHAPED.test(header) ? header : randomUUID();
}

/** Probes are polled every few seconds by orchestrators: their lines are debug, the rest info. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One line per request, written when the response is ready: request id (also returned as
 * `X-Request-Id`), method, the route's template (`/v1/subjects/{subject}/memories`, never the
 * raw path, which holds subject names), status, duration, workspace. No header, query or body.
 */
export function requestLog(logger: () => Logger): MiddlewareHandler<AppEnv> {
  return async function requestLog(c, next) {
    const started = performance.now();
    const id = requestId(c.req.header('x-request-id'));
    c.set('requestId', id);
    // Set before the response exists, so it is written with it: a header set on a finished
    // response makes Hono copy the response, and the server then reads the copy's body back as a
    // stream, chunk by chunk (a few milliseconds on a page of 200 KB). A response built without
    // the context's headers still gets it after.
    c.header('x-request-id', id);
    try {
      await next();
    } finally {
      if (c.res.headers.get('x-request-id') !== id) c.header('x-request-id', id);
      const status = c.res.status;
      const route = templateOf(c);
      const line = {
        event: 'request',
        request_id: id,
        method: c.req.method,
        route,
        status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        workspace_id: c.get('principal')?.workspace_id ?? null,
      };
      const level = status >= 500 && status !== 503 ? 'error' : route !== null && PROBES.has(route) ? 'debug' : 'info';
      logger()[level](line, `${c.req.method} ${route ?? '(no route)'} ${status}`);
    }
  };
}

/** The matched route in OpenAPI's notation; null when only middleware matched (a 404). */
function templateOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string | null {
  const path = routePath(c, -1);
  if (!path || path.endsWith('*')) return null;
  return path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
}
