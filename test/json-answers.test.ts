import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnLoopback, type Served } from '@canon/api';
import { startTestCanon, type TestCanon } from '@canon/testing';

// JSON answers leave the server as UTF-8 bytes encoded once (packages/api/src/json-bytes.ts), not
// as a string the adapter measures and encodes itself: what a client reads must not change —
// the same text, its length in bytes, the status and headers a route gives.

let canon: TestCanon;
let server: Served;
let url: string;
let key: string;

// Two-byte characters, a three-byte one and one outside the Basic Multilingual Plane (a surrogate
// pair in JavaScript, four bytes in UTF-8): a length counted in characters would be short.
const VALUE = 'Zürich — 東京 ☕ 🚀';

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });

/** The body as the bytes sent, and the headers that describe them. */
async function answer(res: Response) {
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), length: Number(res.headers.get('content-length')), bytes, json: JSON.parse(bytes.toString('utf8')) as Record<string, unknown> };
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  key = (await canon.key('owner')).key;
  server = await serveOnLoopback(canon.app);
  url = server.url;
});
afterAll(async () => {
  await server.close();
  await canon.close();
});

describe('JSON answers on the wire', () => {
  it('sends text outside ASCII as UTF-8, with its length in bytes, status and route headers kept', async () => {
    const episode = { idempotency_key: 'wire-1', subject: 'office:wire', kind: 'claim', body: { claims: [{ predicate: 'office city', value: VALUE }] } };
    const ingested = await answer(await call('/v1/episodes?compile=wait', { method: 'POST', body: JSON.stringify({ episodes: [episode] }) }));
    expect(ingested.status).toBe(200);
    expect(ingested.type).toBe('application/json');
    expect(ingested.json).toMatchObject({ created: 1 });
    // A small answer's bytes are a slice of a buffer Node shares between small allocations.
    expect(ingested.length).toBe(ingested.bytes.length);

    const res = await call(`/v1/subjects/${encodeURIComponent('office:wire')}/memories`);
    const page = await answer(res);
    expect(page.status).toBe(200);
    expect(page.type).toBe('application/json');
    expect(page.length).toBe(page.bytes.length);
    expect(page.bytes.length).toBeGreaterThan(page.bytes.toString('utf8').length);
    const memories = page.json['memories'] as Array<{ id: string; current: Array<{ value: unknown }> }>;
    expect(memories.map((m) => m.current.map((v) => v.value))).toEqual([[VALUE]]);

    // A header a route sets before its answer (the memory's ETag) still goes out with it.
    const one = await call(`/v1/memories/${memories[0]!.id}`);
    const memory = await answer(one);
    expect(memory.status).toBe(200);
    expect(one.headers.get('etag')).toBe(`"${memory.json['etag'] as string}"`);
    expect(memory.length).toBe(memory.bytes.length);
  });

  it('keeps a problem a problem: its own content type and status', async () => {
    const res = await call('/v1/episodes', { method: 'POST', body: JSON.stringify({ episodes: [] }) });
    const problem = await answer(res);
    expect(problem.status).toBe(400);
    expect(problem.type).toBe('application/problem+json');
    expect(problem.length).toBe(problem.bytes.length);
    expect(problem.json['type']).toMatch(/^urn:canon:problem:/);
  });
});
