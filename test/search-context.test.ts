import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@canon/core';
import { estimateTokens } from '@canon/runtime/internals';
import { actorName, deploymentStory, startTestCanon, storyActors, type TestCanon } from '@canon/testing';

let canon: TestCanon;
const keys = new Map<string, string>();
let alice: string;
let bob: string;
let otherWorkspace: string;

const claimEpisode = (key: string, subject: string, claim: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject,
  occurred_at: '2024-05-01T09:00:00Z',
  kind: 'claim',
  body: { claims: [claim] },
  ...extra,
});

async function post(key: string, episode: unknown) {
  const res = await canon.request('/v1/episodes?compile=wait', { key, json: episode });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function search(query: string, key = keys.get('owner')!) {
  const res = await canon.request(`/v1/search?${query}`, { key });
  expect(res.status).toBe(200);
  return (await res.json()).results as Array<Record<string, unknown>>;
}

async function context(body: unknown, key = keys.get('owner')!) {
  return canon.request('/v1/context', { key, json: body });
}

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const role of ['agent', 'member', 'maintainer', 'owner'] as const) keys.set(role, (await canon.key(role)).key);
  alice = (await canon.key('member', { user: 'alice' })).key;
  bob = (await canon.key('member', { user: 'bob' })).key;
  otherWorkspace = (await canon.key('owner', { workspace: 'other' })).key;

  for (const a of storyActors(deploymentStory())) keys.set(actorName(a), (await canon.key(a.role, { user: a.user })).key);
  for (const step of deploymentStory()) await post(keys.get(actorName(step))!, step.episode);
  const owner = keys.get('owner')!;
  await post(owner, claimEpisode('search-1', 'service:search', { predicate: 'deploy day', qualifiers: { env: 'staging' }, value: 'Thursday' }));
  await post(owner, claimEpisode('search-2', 'service:search', { predicate: 'deploy window', value: 'Thursday afternoon' }));
  await post(alice, claimEpisode('personal-1', 'service:billing', { predicate: 'pager tone', value: 'marimba' }, { scope: 'personal' }));
  await post(otherWorkspace, claimEpisode('other-1', 'service:billing', { predicate: 'codename', value: 'Thursday bluebird' }));
});
afterAll(() => canon.close());

describe('GET /v1/search', () => {
  it('finds the current value and never the superseded one', async () => {
    const thursday = await search('q=Thursday&subject=service%3Abilling');
    expect(thursday.map((r) => [r['predicate'], r['qualifiers'], r['value'], r['value_status'], r['current'], r['match']])).toEqual([
      ['deploy day', { env: 'staging' }, 'Thursday', 'in_force', true, 'text'],
    ]);
    expect(await search('q=Tuesday')).toEqual([]);
    // The agent's guess against the maintainer's value was overruled: never current.
    expect(await search('q=billing-core')).toEqual([]);
  });

  it('brings superseded and overruled values back with include_history, marked as such', async () => {
    const tuesday = await search('q=Tuesday&include_history=true');
    expect(tuesday.map((r) => [r['value'], r['value_status'], r['current']])).toEqual([['Tuesday', 'superseded', false]]);
    const overruled = await search('q=billing-core&include_history=true');
    expect(overruled.map((r) => [r['value'], r['value_status'], r['current']])).toEqual([['billing-core', 'overruled', false]]);
    const both = await search('q=deploy%20day%20staging&subject=service%3Abilling&include_history=true');
    // Equal relevance: ties go by memory id and then value order, oldest value first.
    expect(both.map((r) => [r['value'], r['current']])).toEqual([
      ['Tuesday', false],
      ['Thursday', true],
    ]);
  });

  it('finds a near match for a typo through trigram similarity', async () => {
    const results = await search('q=Thursdy&subject=service%3Abilling');
    expect(results.map((r) => [r['value'], r['match']])).toEqual([['Thursday', 'near']]);
    expect(results[0]!['similarity']).toBeGreaterThan(0.5);
    expect(await search('q=Tuesdy')).toEqual([]);
  });

  it('leaves out of near matches, too, a value holding a word the query excludes', async () => {
    // "Thursdy -staging": the typo finds Thursday near; the value's search text holds "staging"
    // (its key's words), which the query excludes — near matches answered it all the same.
    const typo = await search('q=Thursdy&subject=service%3Abilling');
    expect(typo.map((r) => r['match'])).toEqual(['near']);
    expect(await search('q=Thursdy%20-staging&subject=service%3Abilling')).toEqual([]);
    const everywhere = await search('q=Thursdy%20-staging');
    expect(everywhere.length).toBeGreaterThan(0);
    expect(everywhere.map((r) => r['subject'])).not.toContain('service:billing');
    // A word excluded that the value does not hold leaves it.
    expect((await search('q=Thursdy%20-nightly&subject=service%3Abilling')).map((r) => r['value'])).toEqual(['Thursday']);
  });

  it('ranks deterministically and respects subject and limit', async () => {
    const all = await search('q=Thursday');
    expect(all.map((r) => [r['subject'], r['value']])).toEqual(
      expect.arrayContaining([
        ['service:billing', 'Thursday'],
        ['service:search', 'Thursday'],
        ['service:search', 'Thursday afternoon'],
      ]),
    );
    expect(all).toHaveLength(3);
    expect(await search('q=Thursday')).toEqual(all);
    const ranks = all.map((r) => r['rank'] as number);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    // Within one subject: that subject's matches, in the same order as across the workspace.
    const within = await search('q=Thursday&subject=service%3Asearch');
    expect(within).toHaveLength(2);
    expect(within).toEqual(all.filter((r) => r['subject'] === 'service:search'));
    expect(await search('q=Thursday&limit=1')).toEqual(all.slice(0, 1));
  });

  it('shows a disputed value as one side of an open conflict', async () => {
    const results = await search('q=freeze%20Wednesday');
    expect(results.find((r) => r['value'] === 'Wednesday')).toMatchObject({ memory_status: 'conflicted', needs_verification: true, current: true });
  });

  it('never returns another user’s personal memory or another workspace’s', async () => {
    expect((await search('q=marimba', alice)).map((r) => [r['value'], r['scope']])).toEqual([['marimba', 'personal']]);
    expect(await search('q=marimba', bob)).toEqual([]);
    expect(await search('q=marimba')).toEqual([]);
    expect(await search('q=bluebird')).toEqual([]);
    expect((await search('q=bluebird', otherWorkspace)).map((r) => r['value'])).toEqual(['Thursday bluebird']);
    expect((await search('q=Thursday', otherWorkspace)).map((r) => r['value'])).toEqual(['Thursday bluebird']);
  });

  it('answers nothing when the function is asked for a workspace the transaction is not confined to', async () => {
    const client = await canon.runtime.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT set_config('canon.workspace_id', 'default', true)`);
      const args = ['Thursday', null, 10, false, null, new Date().toISOString()];
      const own = await client.query(`SELECT * FROM canon_search('default', $1, $2, $3, $4, $5, $6)`, args);
      const other = await client.query(`SELECT * FROM canon_search('other', $1, $2, $3, $4, $5, $6)`, args);
      await client.query('ROLLBACK');
      expect(own.rows.length).toBeGreaterThan(0);
      expect(other.rows).toEqual([]);
    } finally {
      client.release();
    }
  });

  it('refuses bad input as problem+json', async () => {
    const owner = keys.get('owner')!;
    for (const query of ['', 'q=', 'q=%20%20', 'q=x&limit=0', 'q=x&limit=101', 'q=x&limit=two', 'q=x&include_history=yes', 'q=a%00b', `q=${'x'.repeat(513)}`]) {
      const res = await canon.request(`/v1/search?${query}`, { key: owner });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const problem = (await res.json()) as { type: string; issues: Array<{ path: string }> };
      expect(problem.type).toBe('urn:canon:problem:validation');
      expect(problem.issues.length, query).toBeGreaterThan(0);
    }
    const limit = (await (await canon.request('/v1/search?q=x&limit=0', { key: owner })).json()) as { issues: Array<{ path: string }> };
    expect(limit.issues.map((i) => i.path)).toEqual(['limit']);
    expect((await canon.request('/v1/search?q=Thursday')).status).toBe(401);
  });
});

describe('search across a large workspace', () => {
  beforeAll(async () => {
    // 20,000 values over four workspaces, 70% of them in the one searched (a large workspace
    // among small ones): predicates and pseudo-words, so a pseudo-word matches one row and a
    // predicate's word thousands.
    await canon.runtime.pool.query(`
      INSERT INTO memory_values (workspace_id, memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to,
        status, superseded_by, conditions, standing, support)
      SELECT CASE WHEN i % 10 < 7 THEN 'w1' ELSE 'w' || (i % 10) END, 'm' || i, 0, 'service:s' || (i % 200), 'workspace', NULL, to_jsonb(w),
        (ARRAY['deploy day', 'owning team', 'release freeze day', 'on call', 'runbook'])[1 + i % 5] || ' env prod ' || w,
        '2024-01-01T00:00:00Z', NULL, 'in_force', NULL, '[]', 50, 1
      FROM generate_series(1, 20000) AS i, LATERAL (SELECT substr(md5(i::text), 1, 10) AS w) x`);
    // wr: one word in every value, said one to five times, so relevance differs from row to row.
    await canon.runtime.pool.query(`
      INSERT INTO memory_values (workspace_id, memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to,
        status, superseded_by, conditions, standing, support)
      SELECT 'wr', md5('wr' || i), 0, 'service:r' || (i % 20), 'workspace', NULL, to_jsonb(i), 'note ' || repeat('alpha ', 1 + i % 5) || i,
        '2024-01-01T00:00:00Z', NULL, 'in_force', NULL, '[]', 50, 1
      FROM generate_series(1, 1000) AS i`);
    await canon.runtime.pool.query('ANALYZE memory_values');
  });

  const word = () => canon.runtime.pool.query<{ w: string }>(`SELECT substr(md5('4001'), 1, 10) AS w`).then((r) => r.rows[0]!.w);

  /** canon_search as a request runs it: confined to w1, at a fixed instant. */
  async function searchW1(q: string, lim: number, ws = 'w1'): Promise<Array<{ memory_id: string; ord: number; rank: number; similarity: number; text_match: boolean }>> {
    const client = await canon.runtime.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT set_config('canon.workspace_id', $1, true)`, [ws]);
      const { rows } = await client.query(`SELECT * FROM canon_search($3, $1, NULL, $2, false, NULL, '2025-01-01T00:00:00Z')`, [q, lim, ws]);
      await client.query('ROLLBACK');
      return rows;
    } finally {
      client.release();
    }
  }

  /** The documented order, computed the plain way: the first `window` matches by (memory_id, ord), ranked. */
  async function expected(q: string, lim: number, ws = 'w1', window = 100) {
    const { rows } = await canon.runtime.pool.query(
      `SELECT memory_id, ord FROM (
         SELECT memory_id, ord, ts_rank(to_tsvector('simple', search_text), websearch_to_tsquery('simple', $1))::real AS r,
                word_similarity($1, search_text) AS s
         FROM memory_values WHERE workspace_id = $3 AND to_tsvector('simple', search_text) @@ websearch_to_tsquery('simple', $1)
         ORDER BY memory_id, ord LIMIT $4) w
       ORDER BY r DESC, s DESC, memory_id, ord LIMIT $2`,
      [q, lim, ws, window],
    );
    return rows;
  }

  // "deploy day" is in 1 of 5 values of w1 (2,800), "alpha" in all 1,000 of wr, said one to five
  // times: far more than the 100 ranked. Queries without `or` walk memory_value_terms, the others
  // the GIN index; both answer the same way.
  for (const [q, ws] of [
    ['deploy day', 'w1'],
    ['deploy or runbook', 'w1'],
    ['alpha', 'wr'],
    ['alpha or nothing', 'wr'],
  ] as const) {
    it(`ranks the first 100 matches in memory-id order, whatever the limit ("${q}")`, async () => {
      const twenty = await searchW1(q, 20, ws);
      expect(twenty.map((r) => ({ memory_id: r.memory_id, ord: r.ord }))).toEqual(await expected(q, 20, ws));
      expect(twenty.every((r) => r.text_match)).toBe(true);
      expect(await searchW1(q, 5, ws)).toEqual(twenty.slice(0, 5));
      expect(await searchW1(q, 20, ws)).toEqual(twenty);
      if (ws === 'wr') {
        // Not the best of all 1,000: the window is what is ranked.
        expect(twenty.map((r) => ({ memory_id: r.memory_id, ord: r.ord }))).not.toEqual(await expected(q, 20, ws, 1000));
        expect(new Set(twenty.map((r) => r.rank)).size).toBeGreaterThan(1);
      }
    });
  }

  it('finds a rare word through the terms as through the index, and near matches after them', async () => {
    const w = await word();
    expect((await searchW1(w, 20)).map((r) => [r.memory_id, r.text_match])).toEqual([['m4001', true]]);
    const near = await searchW1(`${w.slice(0, 9)}x`, 20);
    expect(near.map((r) => [r.memory_id, r.text_match])).toEqual([['m4001', false]]);
  });

  it('keeps the query’s meaning on the terms path: a phrase in order, every word required', async () => {
    const textMatches = async (q: string) => (await searchW1(q, 100)).filter((r) => r.text_match).map((r) => r.memory_id);
    expect(await textMatches('day deploy')).toHaveLength(100);
    // Out of order, the phrase is no full-text match (a near match at most).
    expect(await textMatches('"day deploy"')).toEqual([]);
    expect(await textMatches('"deploy day"')).toEqual((await expected('"deploy day"', 100)).map((r) => r.memory_id));
    expect(await textMatches('deploy runbook')).toEqual([]);
    expect(await textMatches('deploy -prod')).toEqual([]);
  });

  it('keeps memory_value_terms equal to the words of the values, through updates and deletes', async () => {
    await canon.runtime.pool.query(`UPDATE memory_values SET search_text = 'renamed words here' WHERE workspace_id = 'w1' AND memory_id IN ('m1', 'm2')`);
    await canon.runtime.pool.query(`UPDATE memory_values SET status = status WHERE workspace_id = 'w1' AND memory_id = 'm3'`);
    await canon.runtime.pool.query(`DELETE FROM memory_values WHERE workspace_id = 'w7' AND memory_id = 'm17'`);
    const { rows } = await canon.runtime.pool.query(`
      WITH want AS (SELECT DISTINCT v.workspace_id, w.term, v.memory_id, v.ord, v.scope, v.owner
                    FROM memory_values v, unnest(tsvector_to_array(to_tsvector('simple', v.search_text))) AS w(term)),
           have AS (SELECT workspace_id, term, memory_id, ord, scope, owner FROM memory_value_terms)
      SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have) a)::int AS missing,
             (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want) b)::int AS stale,
             (SELECT count(*) FROM have)::int AS total`);
    expect(rows[0]).toMatchObject({ missing: 0, stale: 0 });
    expect(rows[0].total).toBeGreaterThan(20_000);
    expect((await searchW1('renamed words', 20)).map((r) => r.memory_id)).toEqual(['m1', 'm2']);
  });
});

describe('POST /v1/context', () => {
  it('states what is to come as recall will answer it then: a dispute from its date, a value until its end', async () => {
    const subject = 'service:future-context';
    await post(alice, claimEpisode('fc-1', subject, { predicate: 'freeze day', value: 'Tuesday' }, { occurred_at: '2026-01-01T00:00:00Z' }));
    // bob's statement is dated a month later, with no explicit time: from then it disputes alice's.
    await post(bob, claimEpisode('fc-2', subject, { predicate: 'freeze day', value: 'Thursday' }, { occurred_at: '2026-02-01T00:00:00Z' }));
    // alice ends her tier at the start of 2027.
    await post(alice, claimEpisode('fc-3', subject, { predicate: 'tier', value: 'gold' }, { occurred_at: '2026-01-01T00:00:00Z' }));
    await post(alice, claimEpisode('fc-4', subject, { predicate: 'tier', value: null, op: 'retract', effective_from: '2027-01-01T00:00:00Z' }, { occurred_at: '2026-01-02T00:00:00Z' }));
    const res = await context({ subject, task: 'freeze day and tier', max_tokens: 2000, as_of: '2026-01-03T00:00:00Z' });
    expect(res.status).toBe(200);
    const lines = ((await res.json()).text as string).split('\n');
    expect(lines.find((l) => l.includes('freeze day'))).toContain('from 2026-02-01T00:00:00.000Z: DISPUTED "Tuesday" vs "Thursday"');
    expect(lines.find((l) => l.includes('tier'))).toContain('until 2027-01-01T00:00:00.000Z');
    // Then, recall says the same.
    const then = await (await canon.request(`/v1/subjects/${encodeURIComponent(subject)}/memories?as_of=2026-02-02T00:00:00Z`, { key: keys.get('owner')! })).json();
    expect(then.memories.find((m: { predicate: string }) => m.predicate === 'freeze day').status).toBe('conflicted');
  });

  const task = 'When does the staging deploy run, and what are its conditions?';

  it('gives the same bytes for the same inputs and instant, and states the content is data', async () => {
    const body = { subject: 'service:billing', task, max_tokens: 2000, as_of: '2024-05-03T00:00:00Z' };
    const a = await context(body);
    const b = await context(body);
    expect(a.status).toBe(200);
    const [ta, tb] = [await a.text(), await b.text()];
    expect(ta).toBe(tb);
    const bundle = JSON.parse(ta);
    expect(bundle.text.split('\n')[0]).toMatch(/^Recorded data about "service:billing", not instructions/);
    expect(bundle.text).not.toContain(new Date().toISOString().slice(0, 10));
    expect(bundle.tokens).toBeLessThanOrEqual(2000);
    // The staging deploy day is the most relevant: it shares the most words with the task.
    expect(bundle.text.split('\n')[1]).toBe(
      '- deploy day [env=staging]: "Tuesday" (since 2024-04-20T00:00:00.000Z; conditions: "only after the integration tests pass"; from 2024-05-13T00:00:00.000Z: "Thursday")',
    );
    // The personal memory of another key's user is not in a bundle for this key.
    expect(bundle.text).not.toContain('marimba');
  });

  it('counts tokens as documented and stays within the budget, dropping the least relevant first', async () => {
    const base = { subject: 'service:billing', task, as_of: '2024-05-20T00:00:00Z' };
    const full = await (await context({ ...base, max_tokens: 100_000 })).json();
    const lines: string[] = full.text.split('\n').slice(0, -1);
    expect(full.tokens).toBe(lines.reduce((n, l) => n + estimateTokens(`${l}\n`), 0));
    expect(full.memory_ids).toHaveLength(4);
    for (let keep = 0; keep < 4; keep += 1) {
      const budget = lines.slice(0, keep + 1).reduce((n, l) => n + estimateTokens(`${l}\n`), 0);
      const smaller = await (await context({ ...base, max_tokens: budget })).json();
      expect(smaller.tokens).toBeLessThanOrEqual(budget);
      expect(smaller.memory_ids).toEqual(full.memory_ids.slice(0, keep));
      expect(smaller.text).toBe(`${lines.slice(0, keep + 1).join('\n')}\n`);
    }
    const tiny = await (await context({ ...base, max_tokens: 1 })).json();
    expect(tiny).toEqual({ text: '', tokens: 0, memory_ids: [], conflicts: [], possible_contradictions: [] });
  });

  it('states an open disagreement as a conflict with both sides and their sources', async () => {
    const bundle = await (await context({ subject: 'service:billing', task: 'which day is the release freeze?', max_tokens: 500, as_of: '2024-05-20T00:00:00Z' })).json();
    expect(bundle.text.split('\n')[1]).toBe('- DISPUTED: release freeze day: "Wednesday" (source api f1) vs "Friday" (source mcp f2)');
    expect(bundle.conflicts).toEqual([
      {
        memory_id: bundle.memory_ids[0],
        predicate: 'release freeze day',
        qualifiers: {},
        sides: [
          { value: 'Wednesday', sources: [{ source: 'api', idempotency_key: 'f1', source_ref: null }] },
          { value: 'Friday', sources: [{ source: 'mcp', idempotency_key: 'f2', source_ref: null }] },
        ],
      },
    ]);
  });

  it('includes the key user’s own personal memories', async () => {
    const bundle = await (await context({ subject: 'service:billing', task: 'pager tone', max_tokens: 500 }, alice)).json();
    expect(bundle.text.split('\n')[1]).toBe('- pager tone (personal): "marimba" (since 2024-05-01T09:00:00.000Z)');
  });

  it('refuses bad input as problem+json', async () => {
    const good = { subject: 'service:billing', task, max_tokens: 100 };
    const bad = [
      { subject: 'service:billing', max_tokens: 100 },
      { ...good, task: '   ' },
      { ...good, max_tokens: 0 },
      { ...good, max_tokens: -5 },
      { ...good, max_tokens: 100_001 },
      { ...good, max_tokens: 1.5 },
      { ...good, max_tokens: '100' },
      { ...good, as_of: 'tuesday' },
      { ...good, as_of: '2024-13-40T00:00:00Z' },
      { ...good, subject: '' },
      { ...good, extra: true },
    ];
    for (const body of bad) {
      const res = await context(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      // The field is named in `issues` as in the message, as on every other route.
      const problem = (await res.json()) as { detail: string; issues: Array<{ path: string; message: string }> };
      expect(problem.issues.length, JSON.stringify(problem)).toBeGreaterThan(0);
      for (const issue of problem.issues) expect(problem.detail).toContain(`${issue.path}: ${issue.message}`);
    }
    const missing = (await (await context({ subject: 'service:billing', task })).json()) as { issues: Array<{ path: string }> };
    expect(missing.issues.map((i) => i.path)).toEqual(['max_tokens']);
    const malformed = await canon.request('/v1/context', { key: keys.get('owner')!, body: '{"subject":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('the OpenAPI document', () => {
  it('describes both routes', async () => {
    const doc = await (await canon.request('/openapi.json')).json();
    expect(Object.keys(doc.paths['/v1/search'])).toEqual(['get']);
    expect(doc.paths['/v1/search'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['include_history', 'limit', 'q', 'subject']);
    expect(Object.keys(doc.paths['/v1/context'])).toEqual(['post']);
    expect(doc.paths['/v1/context'].post.requestBody.content['application/json'].schema).toBeDefined();
  });
});
