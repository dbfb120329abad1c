import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// A number out of a double's range (1e400, which JSON.parse turns into Infinity) in an export
// line is that line's fault: a 400 export_invalid naming it, nothing written — never the 500 that
// hashing the line's canonical JSON ("Infinity is not allowed") would give.

let source: TestCanon;
let target: TestCanon;
let text: string;

beforeAll(async () => {
  source = await startTestCanon({ queue: false });
  const owner = (await source.key('owner')).key;
  const res = await source.request('/v1/episodes?compile=wait', {
    key: owner,
    json: { idempotency_key: 'n-1', subject: 'service:n', kind: 'claim', body: { claims: [{ predicate: 'size', value: 'PLACEHOLDER' }] } },
  });
  expect(res.status).toBe(200);
  text = await (await source.request('/v1/export', { key: owner })).text();
  target = await startTestCanon({ queue: false });
}, 120_000);

afterAll(async () => {
  await target?.close();
  await source?.close();
});

describe('import of a line holding 1e400', () => {
  it('is a 400 export_invalid naming the line, with nothing written', async () => {
    const lines = text.trimEnd().split('\n');
    const at = lines.findIndex((l) => l.includes('"PLACEHOLDER"'));
    expect(at).toBeGreaterThan(0);
    lines[at] = lines[at]!.replace('"PLACEHOLDER"', '1e400');
    const me = (await target.key('owner')).key;
    const res = await target.request('/v1/import', { method: 'POST', key: me, headers: { 'content-type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' });
    expect(res.status, await res.clone().text()).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'urn:canon:problem:export_invalid', line: at + 1 });
    const { rows } = await target.runtime.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM episodes WHERE workspace_id = 'default'");
    expect(rows[0]!.n).toBe(0);
  });
});
