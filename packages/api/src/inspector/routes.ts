import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import { CanonError, UnauthorizedError } from '@canon/core';
import { isUnavailable, log, type Runtime } from '@canon/runtime';
import { inspectorKey, KEY_COOKIE, type InspectorEnv } from './auth.js';
import { page } from './layout.js';
import { conflictsPage, loginPage, subjectPage, subjectsPage } from './pages.js';

const PAGE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['cache-control', 'no-store'],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'same-origin'],
  ['content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"],
];

const STATUS: Partial<Record<CanonError['type'], 400 | 403 | 404 | 409>> = { validation: 400, forbidden: 403, not_found: 404, conflict: 409 };
const PER_PAGE = 50;

/**
 * The web inspector, mounted at /inspect: server-rendered HTML, no script. Every page acts with
 * the key's principal through the same runtime functions as the JSON API, so role and scope
 * limits are the API's. Forms post with a SameSite=Strict cookie and an Origin check (`csrf`).
 */
export function inspectorRoutes(runtime: Runtime): Hono<InspectorEnv> {
  const app = new Hono<InspectorEnv>();

  app.onError((err, c) => {
    if (err instanceof UnauthorizedError) {
      deleteCookie(c, KEY_COOKIE, { path: '/inspect' });
      return c.html(page('Sign in', loginPage('That key is not valid (revoked, or mistyped).'), { signedIn: false }), 401);
    }
    if (err instanceof CanonError) return c.html(page('Error', html`<h1>Error</h1><p class="error" role="alert">${err.message}</p>`), STATUS[err.type] ?? 400);
    // The csrf() Origin check (a cross-site form post) and the body limit answer for themselves.
    if (err instanceof HTTPException) return err.getResponse();
    if (isUnavailable(err)) {
      return c.html(page('Unavailable', html`<h1>Unavailable</h1><p class="error" role="alert">The database cannot be reached right now; try again shortly.</p>`), 503, { 'retry-after': '2' });
    }
    log().error({ event: 'internal_error', component: 'inspector', err }, 'inspector error');
    return c.html(page('Error', html`<h1>Error</h1><p class="error" role="alert">The inspector could not show this page.</p>`), 500);
  });

  app.use('*', csrf());
  app.use('*', bodyLimit({ maxSize: 64 * 1024 }));
  app.use('*', async (c, next) => {
    // Before the page exists, so they are written with it (see request-log.ts); a response built
    // without the context's headers gets them after.
    for (const [name, value] of PAGE_HEADERS) c.header(name, value);
    await next();
    for (const [name, value] of PAGE_HEADERS) if (c.res.headers.get(name) !== value) c.header(name, value);
  });

  app.get('/login', (c) => c.html(page('Sign in', loginPage(null), { signedIn: false })));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const key = typeof form['key'] === 'string' ? form['key'].trim() : '';
    try {
      await runtime.authenticate(key);
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
      return c.html(page('Sign in', loginPage('That key is not valid (revoked, or mistyped).'), { signedIn: false }), 401);
    }
    setCookie(c, KEY_COOKIE, key, {
      path: '/inspect',
      httpOnly: true,
      sameSite: 'Strict',
      secure: new URL(c.req.url).protocol === 'https:',
      maxAge: 8 * 3600,
    });
    return c.redirect('/inspect', 303);
  });
  app.post('/logout', (c) => {
    deleteCookie(c, KEY_COOKIE, { path: '/inspect' });
    return c.redirect('/inspect/login', 303);
  });

  app.use('*', inspectorKey(runtime));

  app.get('/', async (c) => c.html(page('Subjects', subjectsPage(await runtime.subjects(c.get('principal'))))));

  app.get('/subjects/:subject', async (c) => {
    const subject = c.req.param('subject');
    const pageNumber = Number(c.req.query('page') ?? '1');
    const asOf = c.req.query('as_of') || undefined;
    const report = await runtime.inspectSubject(c.get('principal'), subject, {
      page: Number.isInteger(pageNumber) && pageNumber > 0 ? pageNumber : 1,
      perPage: PER_PAGE,
      asOf,
    });
    return c.html(page(subject, subjectPage(report, asOf)));
  });

  app.get('/conflicts', async (c) => {
    const principal = c.get('principal');
    const { conflicts } = await runtime.conflicts(principal, { subject: c.req.query('subject') || undefined, limit: 1000 });
    return c.html(page('Conflicts', conflictsPage(conflicts, principal.role, { ok: c.req.query('resolved') ? 'The conflict is resolved.' : undefined })));
  });

  app.post('/conflicts/:id/resolve', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const reason = typeof form['reason'] === 'string' ? form['reason'].trim() : '';
    const revision = typeof form['revision'] === 'string' ? form['revision'] : '';
    let value: unknown;
    try {
      value = JSON.parse(typeof form['value'] === 'string' ? form['value'] : '');
    } catch {
      value = undefined;
    }
    try {
      // The revision the form was rendered at names the resolution: a double submit is a duplicate.
      await runtime.resolve(principal, id, { value, reason, ...(/^\d+$/.test(revision) ? { idempotency_key: `resolve:${id}:${revision}` } : {}) });
    } catch (err) {
      if (!(err instanceof CanonError) || err instanceof UnauthorizedError) throw err;
      const { conflicts } = await runtime.conflicts(principal, { limit: 1000 });
      return c.html(page('Conflicts', conflictsPage(conflicts, principal.role, { error: err.message })), STATUS[err.type] ?? 400);
    }
    return c.redirect(`/inspect/conflicts?resolved=${encodeURIComponent(id)}`, 303);
  });

  return app;
}
