import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Principal, Runtime } from '@canon/runtime';

export type InspectorEnv = { Variables: { principal: Principal } };

/**
 * The cookie that carries the API key for a browser. A browser cannot add an Authorization
 * header to a link it follows, so the login form puts the key in a cookie that is HttpOnly
 * (no script can read it), SameSite=Strict (no other site can make the browser send it, which is
 * what stops cross-site form posts) and scoped to /inspect (the JSON API never reads it: /v1
 * takes Bearer keys only). Secure is added whenever the page is served over https.
 */
export const KEY_COOKIE = 'canon_inspect_key';

/** Bearer header first (scripts, tests, proxies), else the login cookie; else the login page. */
export function inspectorKey(runtime: Runtime): MiddlewareHandler<InspectorEnv> {
  return async function inspectorKey(c, next) {
    const header = c.req.header('authorization');
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const key = bearer ?? getCookie(c, KEY_COOKIE);
    if (!key) return c.redirect('/inspect/login', 303);
    c.set('principal', await runtime.authenticate(key));
    await next();
  };
}
