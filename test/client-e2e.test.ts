import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnLoopback, type Served } from '@canon/api';
import { CanonApiError, compileAndWait, httpPort, type HttpPort } from '@canon/client';
import { startTestCanon, type TestCanon } from '@canon/testing';

let canon: TestCanon;
let server: Served;
let baseUrl: string;
let maintainer: HttpPort;
let agent: HttpPort;
/** A second maintainer: their disagreement with the first is a conflict, not an update. */
let colleague: HttpPort;

beforeAll(async () => {
  // With the queue and its workers: compileAndWait polls a real pg-boss job.
  canon = await startTestCanon({}, { CANON_COMPILE_DEBOUNCE_SECONDS: '3600' });
  server = await serveOnLoopback(canon.app);
  baseUrl = server.url;
  maintainer = httpPort({ baseUrl, apiKey: (await canon.key('maintainer')).key });
  agent = httpPort({ baseUrl, apiKey: (await canon.key('agent')).key });
  colleague = httpPort({ baseUrl, apiKey: (await canon.key('maintainer', { user: 'colleague' })).key });
});
afterAll(async () => {
  await server.close();
  await canon.close();
});

const ep = (key: string, value: string, at: string) => ({
  idempotency_key: key,
  subject: 'service:e2e',
  occurred_at: at,
  kind: 'claim',
  body: { claims: [{ predicate: 'release freeze day', value }] },
});

describe('the port over a real HTTP server', () => {
  it('ingests, compiles through a job, reads with an ETag, proposes conditionally, lists and resolves a conflict', async () => {
    const ingested = [
      await maintainer.ingest([ep('e2e-1', 'Wednesday', '2024-05-01T09:00:00Z')]),
      await colleague.ingest([ep('e2e-2', 'Friday', '2024-05-02T09:00:00Z')]),
    ];
    expect(ingested).toMatchObject([
      { created: 1, duplicates: 0, erased: 0 },
      { created: 1, duplicates: 0, erased: 0 },
    ]);

    const job = await compileAndWait(maintainer, { subject: 'service:e2e' }, { pollMs: 100, timeoutMs: 30_000 });
    expect(job.state).toBe('completed');

    const { memories } = await agent.memories('service:e2e');
    expect(memories).toHaveLength(1);
    const m = memories[0]!;
    expect(m.status).toBe('conflicted');

    const { conflicts, next } = await agent.conflicts({ subject: 'service:e2e' });
    expect(next).toBeNull();
    expect(conflicts.map((c) => c.sides.map((s) => s.value))).toEqual([['Wednesday', 'Friday']]);

    const forbidden = await agent.resolve(m.id, { value: 'Friday', reason: 'agent says so' }).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(CanonApiError);
    expect((forbidden as CanonApiError).status).toBe(403);

    const resolved = await maintainer.resolve(m.id, { value: 'Friday', reason: 'release calendar' });
    expect(resolved.decision?.kind).toBe('settles');

    const memory = await agent.memory(m.id);
    const { response } = await agent.api.GET('/v1/memories/{id}', { params: { path: { id: m.id } } });
    expect(response.headers.get('etag')).toBe(`"${memory.etag}"`);
    const proposal = { idempotency_key: 'e2e-p1', conditions: ['not on holidays'], reason: 'holidays' };
    const stale = await maintainer.propose(m.id, proposal, { if_match: `"${m.etag}"` }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(CanonApiError);
    expect((stale as CanonApiError).type).toBe('precondition_failed');
    expect((stale as CanonApiError).status).toBe(412);
    expect(((stale as CanonApiError).problem['current'] as { etag: string }).etag).toBe(memory.etag);

    const applied = await maintainer.propose(m.id, proposal, { if_match: `"${memory.etag}"` });
    expect(applied.decision?.kind).toBe('enriches');
    expect(applied.memory.etag).not.toBe(memory.etag);
    expect(applied.memory.view.current[0]!.conditions).toEqual(['not on holidays']);

    const policies = await maintainer.policies();
    expect(policies.own).toBeNull();
  });

  it('serves the OpenAPI document with every new route and a rendered reference at /docs', async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, method] of [
      ['/v1/subjects/{subject}/memories', 'get'],
      ['/v1/memories/{id}', 'patch'],
      ['/v1/memories/{id}/proposals', 'post'],
      ['/v1/conflicts', 'get'],
      ['/v1/memories/{id}/resolution', 'post'],
      ['/v1/policies', 'put'],
      ['/v1/subjects/{subject}', 'delete'],
      ['/v1/erasures', 'post'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const docs = await fetch(`${baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(await docs.text()).toContain('/openapi.json');
  });
});
