import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Headers every answer carries, set before the answer is built so it is written as built (a
// header added to a finished answer made the server copy it and re-read its body as a stream).

let canon: TestCanon;
let key: string;

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  key = (await canon.key('owner')).key;
});
afterAll(async () => canon?.close());

describe('response headers', () => {
  it('names the request on a JSON answer, a problem, an unknown route and a probe', async () => {
    const ok = await canon.request('/v1/subjects', { key, headers: { 'x-request-id': 'req-ok' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('req-ok');
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
    const problem = await canon.request('/v1/memories/no-such-memory', { key, headers: { 'x-request-id': 'req-404' } });
    expect(problem.status).toBe(404);
    expect(problem.headers.get('x-request-id')).toBe('req-404');
    expect(problem.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const unknown = await canon.request('/nowhere', { headers: { 'x-request-id': 'req-none' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toBe('req-none');
    const unauthorized = await canon.request('/v1/subjects', { headers: { 'x-request-id': 'req-401' } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-request-id')).toBe('req-401');
    const probe = await canon.request('/healthz');
    expect(probe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends the inspector’s pages with their security headers, redirects and errors included', async () => {
    for (const path of ['/inspect/login', '/inspect/', '/inspect/subjects/none']) {
      const res = await canon.request(path);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(res.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      expect(res.headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
