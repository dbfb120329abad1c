import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_LINE_BYTES, ExportWriter } from '@canon/core';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Export lines an owner forged with care — every hash and the manifest's digest recomputed — or
// not at all, that no ingest would take: each is a 400 export_invalid naming its line, nothing of
// it written, and the workspace as it was. Before, a year-0 time the log had defaulted to was
// stored (500, then every listing, export, import and compile of the workspace failed), a body
// nested 100,000 deep overflowed the stack hashing it (500), and a line past the limit was a 413
// naming no line.

let source: TestCanon;
let target: TestCanon;
let lines: string[];

const ndjson = { 'content-type': 'application/x-ndjson' };

/** The export with one episode line changed, every hash and the digest written again. */
function forged(change: (episode: Record<string, unknown>) => void, which: (episode: Record<string, unknown>) => boolean): string {
  const writer = new ExportWriter();
  const out: string[] = [];
  for (const line of lines) {
    const record = JSON.parse(line) as Record<string, unknown> & { type: string };
    if (record.type === 'manifest') {
      const { type: _t, counts: _c, digest: _d, ...rest } = record;
      out.push(writer.manifest(rest as Parameters<ExportWriter['manifest']>[0]));
      continue;
    }
    delete record['hash'];
    if (record.type === 'episode' && which(record)) change(record);
    out.push(writer.line(record as Parameters<ExportWriter['line']>[0]));
  }
  return `${out.join('\n')}\n`;
}

async function episodeCount(workspace: string): Promise<number> {
  const { rows } = await target.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episodes WHERE workspace_id = $1', [workspace]);
  return rows[0]!.n;
}

/** An owner of a workspace of its own in the target: each case imports into an empty one. */
const ownerOf = async (workspace: string) => (await target.key('owner', { workspace })).key;

beforeAll(async () => {
  source = await startTestCanon({ queue: false });
  const key = (await source.key('owner')).key;
  // No occurred_at: the log defaults it, and the export says so (occurred_at_defaulted).
  const res = await source.request('/v1/episodes?compile=wait', {
    key,
    json: { episodes: [{ idempotency_key: 'd-1', subject: 'svc:a', body: { text: 'The staging deploy runs on Tuesday.' } }, { idempotency_key: 'd-2', subject: 'svc:a', occurred_at: '2026-03-01T09:00:00Z', body: { text: 'The API timeout is 30 seconds.' } }] },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  lines = (await (await source.request('/v1/export', { key })).text()).trimEnd().split('\n');
  target = await startTestCanon({ queue: false });
}, 120_000);

afterAll(async () => {
  await target?.close();
  await source?.close();
});

describe('an import of lines no ingest would take', () => {
  it('refuses a time the log defaulted to that it cannot store, naming the line, and the workspace goes on', async () => {
    const owner = await ownerOf('times');
    const at = lines.findIndex((l) => l.includes('"idempotency_key":"d-1"'));
    expect(lines[at]).toContain('"occurred_at_defaulted":true');
    for (const time of ['0001-01-01T00:30:00+01:00', '0000-01-01T00:00:00Z', '2024-02-30T00:00:00Z', '+010000-01-01T00:00:00Z']) {
      const body = forged((e) => void (e['occurred_at'] = time), (e) => e['idempotency_key'] === 'd-1');
      const res = await target.request('/v1/import', { method: 'POST', key: owner, headers: ndjson, body });
      expect(res.status, `${time}: ${await res.clone().text()}`).toBe(400);
      expect(await res.json()).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: at + 1 });
      expect(await episodeCount('times')).toBe(0);
    }
    // The forgery itself is sound but for the time: with a good one, it imports.
    const fine = forged((e) => void (e['occurred_at'] = '2026-02-01T00:00:00.000Z'), (e) => e['idempotency_key'] === 'd-1');
    const ok = await target.request('/v1/import', { method: 'POST', key: owner, headers: ndjson, body: fine });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await target.request('/v1/episodes', { key: owner })).status).toBe(200);
    expect((await target.request('/v1/export', { key: owner })).status).toBe(200);
    const verified = await target.request('/v1/verify', { key: owner, json: { subject: 'svc:a' } });
    expect(verified.status, await verified.clone().text()).toBe(200);
    expect(await verified.json()).toMatchObject({ ok: true });
  });

  it('refuses a line nested 100,000 deep before anything recurses into it', async () => {
    const owner = await ownerOf('deep');
    const at = lines.findIndex((l) => l.includes('"idempotency_key":"d-2"'));
    const deep = [...lines];
    deep[at] = deep[at]!.replace('"body":{', `"body":{"deep":${'['.repeat(100_000)}1${']'.repeat(100_000)},`);
    const res = await target.request('/v1/import', { method: 'POST', key: owner, headers: ndjson, body: `${deep.join('\n')}\n` });
    expect(res.status, await res.clone().text()).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: at + 1 });
    expect(await episodeCount('deep')).toBe(0);
  });

  it('refuses a line past the limit as export_invalid naming it, not as a 413 naming nothing', async () => {
    const owner = await ownerOf('long');
    const at = lines.findIndex((l) => l.includes('"idempotency_key":"d-2"'));
    const long = [...lines];
    long[at] = long[at]!.replace('The API timeout is 30 seconds.', `The API timeout is 30 seconds. ${'x'.repeat(EXPORT_LINE_BYTES)}`);
    // The body ends inside the line (no newline after it): refused by its length, not its end.
    const res = await target.request('/v1/import', { method: 'POST', key: owner, headers: ndjson, body: long.slice(0, at + 1).join('\n') });
    expect(res.status, await res.clone().text()).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: at + 1 });
    expect(await episodeCount('long')).toBe(0);
  });

  it('refuses bytes that are not UTF-8 as export_invalid naming their line, not a 500', async () => {
    const owner = await ownerOf('bytes');
    const send = (body: Uint8Array) =>
      Promise.resolve(target.app.request('/v1/import', { method: 'POST', headers: { ...ndjson, authorization: `Bearer ${owner}` }, body }));
    const alone = await send(new Uint8Array([0xff, 0x0a]));
    expect(alone.status, await alone.clone().text()).toBe(400);
    expect(await alone.json()).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: 1, detail: 'line 1: not UTF-8 text' });
    // A whole manifest line first, then a line cut inside a character at the end of the body.
    const head = new TextEncoder().encode(`${lines[0]}\n`);
    const cut = await send(new Uint8Array([...head, 0x7b, 0xe2, 0x82]));
    expect(cut.status, await cut.clone().text()).toBe(400);
    expect(await cut.json()).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: 2 });
    expect(await episodeCount('bytes')).toBe(0);
  });
});
