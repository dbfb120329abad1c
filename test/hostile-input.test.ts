import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// What a hostile or careless client sends, answered as a client error with problem+json and
// nothing stored: never a 500. The classes are the ones a run of 8,800 malformed requests found.
let canon: TestCanon;
let owner: string;
let agent: string;
beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  owner = (await canon.key('owner')).key;
  agent = (await canon.key('agent')).key;
});
afterAll(() => canon.close());

const count = async () => (await canon.runtime.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episodes')).rows[0]!.n;

async function expectProblem(res: Response, status: number, type: string, path?: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const body = JSON.parse(text);
  expect(body.type).toBe(`urn:canon:problem:${type}`);
  if (path) expect(JSON.stringify(body.issues ?? body.detail)).toContain(path);
}

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i += 1) v = [v];
  return v;
};

describe('a body that is not JSON is a 415', () => {
  const routes: Array<[string, string]> = [
    ['POST', '/v1/compile'],
    ['POST', '/v1/rebuild'],
    ['POST', '/v1/verify'],
    ['POST', '/v1/erasures'],
    ['POST', '/v1/memories/m_x/proposals'],
    ['POST', '/v1/memories/m_x/resolution'],
    ['PUT', '/v1/policies'],
    ['PUT', '/v1/schedule'],
    ['POST', '/v1/episodes'],
    ['POST', '/v1/context'],
  ];
  it.each(routes)('%s %s without a content type, and as text/plain', async (method, path) => {
    await expectProblem(await canon.request(path, { method, key: owner, body: '{"subject":"s"}' }), 415, 'unsupported_media_type');
    await expectProblem(await canon.request(path, { method, key: owner, body: 'subject=s', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
  });
  // No body and no content type pass the door (a POST may have none); a route that reads a body says so.
  it.each([['POST', '/v1/episodes'], ['POST', '/v1/context']])('%s %s with no body at all', async (method, path) => {
    await expectProblem(await canon.request(path, { method, key: owner }), 415, 'unsupported_media_type');
  });
});

describe('U+0000 and lone surrogates in paths and queries are a 400 naming them', () => {
  it.each([
    '/v1/memories/%00',
    '/v1/subjects/%00/memories',
    '/v1/conflicts?subject=%00',
    '/v1/episodes?subject=%00',
    '/v1/search?q=%00',
    '/inspect/subjects/%00',
    '/v1/subjects/%ED%A0%80/memories',
    '/v1/subjects/%E0%A4%A/memories',
    '/v1/episodes?subject=%E0%A4%A',
  ])('%s', async (path) => {
    await expectProblem(await canon.request(path, { key: owner }), 400, 'validation');
  });

  it('in the subject of compile, rebuild and verify', async () => {
    for (const [path, body] of [
      ['/v1/compile', { subject: 'a\u0000b' }],
      ['/v1/compile', { subjects: ['ok', '\u0000'] }],
      ['/v1/rebuild', { subject: '\u0000' }],
      ['/v1/verify', { subject: 'x\ud800' }],
    ] as const) {
      await expectProblem(await canon.request(path, { key: owner, json: body }), 400, 'validation');
    }
  });
});

describe("the inspector's page numbers", () => {
  it.each(['99999999999999999999', '1e400', '-5', 'abc', '2.5', '1000001'])('page=%s shows a page, not an error', async (n) => {
    const res = await canon.request(`/inspect/subjects/service%3Ax?page=${n}`, { key: owner });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('a cursor that does not fit is a 400', () => {
  it.each(['99999999999999999999.1', '1.99999999999999999999', '18446744073709551616.0', '1.9223372036854775808', 'abc', '1.-1'])('%s', async (after) => {
    await expectProblem(await canon.request(`/v1/episodes?after=${after}`, { key: owner }), 400, 'validation');
  });

  it('the largest cursor that fits pages nothing, without error', async () => {
    const res = await canon.request('/v1/episodes?after=18446744073709551615.9223372036854775807', { key: owner });
    expect(res.status).toBe(200);
    expect((await res.json()).episodes).toEqual([]);
  });
});

describe('bodies that would hurt the compiler are refused, and nothing is stored', () => {
  const episode = (key: string, over: Record<string, unknown> = {}) => ({ idempotency_key: key, subject: 'service:x', body: { claims: [{ predicate: 'p', value: 'v' }] }, ...over });

  it('a claim value nested 3,000 deep, from an agent key', async () => {
    const before = await count();
    const value = nested(3000);
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('deep', { body: { claims: [{ predicate: 'p', value }] } }) }), 400, 'validation', 'body');
    expect(await count()).toBe(before);
  });

  it('any body nested 4,000 or 100,000 deep', async () => {
    for (const depth of [33, 4000, 100_000]) {
      const body = `{"subject":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      await expectProblem(await canon.request('/v1/compile', { key: owner, body, headers: { 'content-type': 'application/json' } }), 400, 'validation');
    }
  });

  it('a value larger than 64 KiB', async () => {
    await expectProblem(await canon.request('/v1/episodes', { key: owner, json: episode('big', { body: { claims: [{ predicate: 'p', value: 'x'.repeat(70_000) }] } }) }), 400, 'validation', 'value');
  });

  it('lone surrogates in a subject, a value, an idempotency key: refused, never a false key conflict', async () => {
    const before = await count();
    for (const item of [episode('s1', { subject: 'a\ud800' }), episode('s2', { body: { claims: [{ predicate: 'p', value: 'a\udc00b' }] } }), episode('s3\ud800')]) {
      await expectProblem(await canon.request('/v1/episodes', { key: owner, json: item }), 400, 'validation');
    }
    const batch = await canon.request('/v1/episodes', { key: owner, json: { episodes: [episode('\ud800'), episode('\ud801')] } });
    await expectProblem(batch, 400, 'validation');
    expect(await count()).toBe(before);
  });

  it('a number beyond a double (1e400) in a body, a claim, a batch, a proposal: refused, nothing stored', async () => {
    const before = await count();
    const raw = (path: string, body: string) => canon.request(path, { key: owner, body, headers: { 'content-type': 'application/json' } });
    for (const body of [
      '{"idempotency_key":"inf-1","subject":"service:x","body":{"text":"x","extra":1e400}}',
      '{"idempotency_key":"inf-2","subject":"service:x","body":{"claims":[{"predicate":"p","value":-1e400}]}}',
      '{"episodes":[{"idempotency_key":"inf-3","subject":"service:x","body":{"text":"fine"}},{"idempotency_key":"inf-4","subject":"service:x","body":{"n":[1e999]}}]}',
    ]) {
      await expectProblem(await raw('/v1/episodes', body), 400, 'validation', 'body');
    }
    expect(await count()).toBe(before);
    const made = await (await canon.request('/v1/episodes?compile=wait', { key: owner, json: episode('inf-base') })).json();
    const memory = (await (await canon.request('/v1/subjects/service%3Ax/memories', { key: owner })).json()).memories.find((m: { predicate: string }) => m.predicate === 'p');
    expect(made.created).toBe(1);
    await expectProblem(await raw(`/v1/memories/${memory.id}/proposals`, `{"expected_revision":${memory.revision},"idempotency_key":"inf-p","value":1e400}`), 400, 'validation', 'value');
  });

  it('a fact key or a name too long for the database\'s indexes: refused at the door, and a long sentence is a note', async () => {
    const before = await count();
    const long = (n: number, seed: string) => Array.from({ length: n }, (_, i) => seed[i % seed.length]).join('');
    const qualifiers = Object.fromEntries('abcde'.split('').map((k) => [k, long(500, 'qwertyuiop')]));
    // An agent's claim whose predicate and qualifiers make a key of ~3 KB: it used to be stored
    // and then fail every compile of the subject (an index entry is at most 2,704 bytes).
    await expectProblem(
      await canon.request('/v1/episodes?compile=wait', { key: agent, json: episode('key-1', { subject: 'service:victim', body: { claims: [{ predicate: long(500, 'asdfgh'), value: 1, qualifiers }] } }) }),
      400,
      'validation',
      'predicate',
    );
    // 400 four-byte characters are 400 characters and 1,600 bytes: a name is measured in bytes.
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('key-2', { subject: '𝔰'.repeat(400) }) }), 400, 'validation', 'subject');
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('𝔨'.repeat(300)) }), 400, 'validation', 'idempotency_key');
    expect(await count()).toBe(before);
    // The victim's subject still compiles what it is sent.
    const ok = await canon.request('/v1/episodes?compile=wait', { key: owner, json: episode('key-3', { subject: 'service:victim', body: { claims: [{ predicate: 'owner', value: 'ops' }] } }) });
    expect(ok.status).toBe(200);
    // One sentence of 3,000 characters with a slot in it: a template too long for a key, kept as a note.
    const sentence = `The ${long(3000, 'abcdefg hij ')} runs on Tuesday.`;
    const text = await canon.request('/v1/episodes?compile=wait', { key: agent, json: { idempotency_key: 'key-4', subject: 'service:victim', body: { text: sentence } } });
    expect(text.status, await text.clone().text()).toBe(200);
    const memories = (await (await canon.request('/v1/subjects/service%3Avictim/memories', { key: owner })).json()).memories as Array<{ predicate: string }>;
    expect(memories.map((m) => m.predicate).sort()).toEqual(['note', 'owner']);
    const verify = await (await canon.request('/v1/verify', { key: owner, json: { subject: 'service:victim' } })).json();
    expect(verify.ok).toBe(true);
  });

  it('a blank predicate, or an instant in year 0 once in UTC: refused at the door — either used to be stored and fail every compile of the subject', async () => {
    const before = await count();
    for (const predicate of [' ', '\t', '\u00a0', ' \n ']) {
      await expectProblem(
        await canon.request('/v1/episodes?compile=wait', { key: agent, json: episode(`blank-${predicate.charCodeAt(0)}`, { subject: 'service:poisoned', body: { claims: [{ predicate, value: 'x' }] } }) }),
        400,
        'validation',
        'predicate',
      );
    }
    const claim = (effective_from: string) => ({ body: { claims: [{ predicate: 'owner', value: 'ops', effective_from }] } });
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('y0-1', { subject: 'service:poisoned', ...claim('0000-01-01T00:00:00Z') }) }), 400, 'validation', 'effective_from');
    // Year 1 with an offset east of Greenwich is year 0 in UTC.
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('y0-2', { subject: 'service:poisoned', ...claim('0001-01-01T00:30:00+01:00') }) }), 400, 'validation', 'effective_from');
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('y0-3', { occurred_at: '0000-06-01T00:00:00Z' }) }), 400, 'validation', 'occurred_at');
    await expectProblem(await canon.request('/v1/episodes', { key: agent, json: episode('y0-4', { observed_at: '0000-06-01T00:00:00Z' }) }), 400, 'validation', 'observed_at');
    expect(await count()).toBe(before);
    await expectProblem(await canon.request('/v1/subjects/service%3Ax/memories?as_of=0000-06-01T00:00:00Z', { key: agent }), 400, 'validation', 'as_of');
    await expectProblem(await canon.request('/v1/subjects/service%3Ax/memories?known_at=0000-06-01T00:00:00Z', { key: agent }), 400, 'validation', 'known_at');
    // The first instant of year 1 in UTC is still a time.
    const early = await canon.request('/v1/episodes?compile=wait', { key: agent, json: episode('y1', { subject: 'service:poisoned', ...claim('0001-01-01T00:00:00Z') }) });
    expect(early.status, await early.clone().text()).toBe(200);
    const verify = await (await canon.request('/v1/verify', { key: owner, json: { subject: 'service:poisoned' } })).json();
    expect(verify.ok).toBe(true);
  });

  it('a log stored before the door refused them (a blank predicate, a claim in year 0) still compiles, those claims left out', async () => {
    const subject = 'service:old-log';
    const ok = await canon.request('/v1/episodes', { key: owner, json: episode('old-0', { subject, body: { claims: [{ predicate: 'owner', value: 'ops' }] } }) });
    expect(ok.status).toBe(200);
    // As an older Canon stored them: straight into the log, beside a good episode.
    const { rows } = await canon.runtime.pool.query<Record<string, unknown>>("SELECT * FROM episodes WHERE idempotency_key = 'old-0'");
    const row = rows[0]!;
    const bodies = [
      { claims: [{ predicate: '\u00a0', value: 'x' }, { predicate: 'tier', value: 'gold' }] },
      { claims: [{ predicate: 'region', value: 'eu', effective_from: '0000-12-31T23:30:00.000Z' }] },
    ];
    for (const [i, body] of bodies.entries()) {
      const cols: Record<string, unknown> = { ...row, id: crypto.randomUUID(), idempotency_key: `old-${i + 1}`, lineage: `api:old-${i + 1}`, body: JSON.stringify(body), tx_id: undefined, position: undefined };
      const names = Object.keys(cols).filter((k) => cols[k] !== undefined);
      await canon.runtime.pool.query(
        `INSERT INTO episodes (${names.join(', ')}) VALUES (${names.map((_, n) => `$${n + 1}`).join(', ')})`,
        names.map((k) => cols[k]),
      );
      await canon.runtime.pool.query('INSERT INTO pending (workspace_id, subject, episode_id, scope, owner) VALUES ($1, $2, $3, $4, $5)', [row['workspace_id'], subject, cols.id, row['scope'], row['owner']]);
    }
    const compiled = await canon.request('/v1/compile', { key: owner, json: { subject } });
    expect(compiled.status, await compiled.clone().text()).toBe(200);
    const memories = (await (await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories`, { key: owner })).json()).memories as Array<{ predicate: string }>;
    expect(memories.map((m) => m.predicate).sort()).toEqual(['owner', 'tier']);
    const verify = await (await canon.request('/v1/verify', { key: owner, json: { subject } })).json();
    expect(verify.ok).toBe(true);
  });

  it('a job id that is not one: 400 naming job_id, before anything is looked up', async () => {
    await expectProblem(await canon.request('/v1/jobs/not-a-uuid', { key: owner }), 400, 'validation', 'job_id');
    const body = await (await canon.request('/v1/jobs/not-a-uuid', { key: owner })).json();
    expect(body.issues.map((i: { path: string }) => i.path)).toEqual(['job_id']);
  });

  it('a subject that would pass for another (a zero-width space, a bidi override, a control, a space at an end): refused, nothing stored', async () => {
    const before = await count();
    for (const [k, subject, shown] of [
      ['look-1', 'service:billing\u200b', 'U+200B'],
      ['look-2', 'service:\u202egnillib', 'U+202E'],
      ['look-3', 'service:billing\n', 'U+000A'],
      ['look-4', ' service:billing', 'white space at its start or end'],
      ['look-5', 'service:billing\ufeff', 'U+FEFF'],
    ] as const) {
      const res = await canon.request('/v1/episodes', { key: agent, json: { episodes: [episode(`${k}-ok`, { subject: 'service:billing' }), episode(k, { subject })] } });
      const text = await res.clone().text();
      await expectProblem(res, 400, 'validation', 'subject');
      expect(text, k).toContain(shown);
    }
    expect(await count()).toBe(before);
    // Names written with a zero-width non-joiner or joiner (Persian, emoji) are names as written.
    for (const [k, subject] of [['zwnj', 'user:می\u200cخواهم'], ['zwj', 'team:👩\u200d💻']] as const) {
      expect((await canon.request('/v1/episodes', { key: agent, json: episode(k, { subject }) })).status, k).toBe(200);
    }
  });

  it('an idempotency key that would pass for another (a zero-width space, a space at an end): refused, nothing stored', async () => {
    const before = await count();
    for (const [k, shown] of [
      ['zw\u200b', 'U+200B'],
      ['key-1 ', 'white space at its start or end'],
    ] as const) {
      const res = await canon.request('/v1/episodes', { key: agent, json: { episodes: [episode(`${k.trim()}-fine`), episode(k)] } });
      const text = await res.clone().text();
      await expectProblem(res, 400, 'validation', 'idempotency_key');
      expect(text, k).toContain(shown);
      expect(text, k).toContain("another key's");
    }
    expect(await count()).toBe(before);
  });

  it('well-formed text from every plane still goes in', async () => {
    const res = await canon.request('/v1/episodes', { key: owner, json: episode('ok-😀', { subject: 'service:x', body: { text: 'The team emoji is 🚀 and the name is Zoë.' } }) });
    expect(res.status).toBe(200);
  });
});
