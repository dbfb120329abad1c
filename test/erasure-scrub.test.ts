import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCanon, type TestCanon } from '@canon/testing';

// Erasure leaves no name behind (design §8): after it, a marker planted in the erased subject's
// name and content appears in no text, JSON or array column of any table of any schema — the
// job queue's included — and the queue's jobs that named it answer 404.
let canon: TestCanon;
let owner: string;
const enc = encodeURIComponent;

beforeAll(async () => {
  // The real queue and workers: compile jobs, their outputs and singleton keys are in pg-boss.
  canon = await startTestCanon({}, { CANON_COMPILE_DEBOUNCE_SECONDS: '0', CANON_WEBHOOK_HOSTS: '127.0.0.1' });
  owner = (await canon.key('owner')).key;
});
afterAll(() => canon.close());

/** Every (schema, table, column) holding the marker, as text, outside PostgreSQL's own schemas. */
async function placesNaming(marker: string): Promise<string[]> {
  const { rows: columns } = await canon.runtime.pool.query<{ s: string; t: string; c: string }>(
    `SELECT c.table_schema AS s, c.table_name AS t, c.column_name AS c
     FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
       AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')`,
  );
  const found: string[] = [];
  for (const { s, t, c } of columns) {
    const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
    const { rows } = await canon.runtime.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${q(s)}.${q(t)} WHERE strpos(${q(c)}::text, $1) > 0`, [marker]);
    if (rows[0]!.n > 0) found.push(`${s}.${t}.${c}`);
  }
  return found;
}

async function settled(jobId: string, key = owner): Promise<{ state: string }> {
  for (let i = 0; i < 200; i++) {
    const job = await (await canon.request(`/v1/jobs/${jobId}`, { key })).json();
    if (job.state === 'completed' || job.state === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not finish`);
}

const ep = (key: string, subject: string, value: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key,
  subject,
  kind: 'claim',
  body: { claims: [{ predicate: 'contact', value }] },
  ...extra,
});

describe('erasure scrubs every place that names what it erased', () => {
  it('by subject: no table of any schema names it afterwards, and its jobs answer 404', async () => {
    const marker = 'zq7erasemarker';
    const subject = `customer:${marker}`;
    expect((await canon.request('/v1/episodes', { key: owner, json: { episodes: [ep('s-1', subject, `${marker}@acme.test`)] } })).status).toBe(200);
    // A webhook following only that subject names it too; one following everything stays.
    expect((await canon.request('/v1/webhooks', { key: owner, json: { url: 'http://127.0.0.1:9/hook', subject } })).status).toBe(201);
    expect((await canon.request('/v1/webhooks', { key: owner, json: { url: 'http://127.0.0.1:9/all' } })).status).toBe(201);
    const one = (await (await canon.request('/v1/compile', { key: owner, json: { subject, async: true } })).json()).job_id as string;
    const many = (await (await canon.request('/v1/compile', { key: owner, json: { subjects: [subject, 'customer:kept'], async: true } })).json()).job_id as string;
    await settled(one);
    await settled(many);
    await canon.request('/v1/episodes?compile=wait', { key: owner, json: ep('k-1', 'customer:kept', 'kept@acme.test') });
    // Left pending, with its debounced compile queued.
    expect((await canon.request('/v1/episodes', { key: owner, json: ep('s-2', subject, 'late') })).status).toBe(200);
    const before = await placesNaming(marker);
    // The queue's rows name it too: job data, output and singleton key.
    expect(before.filter((p) => p.startsWith('pgboss.')).length, before.join()).toBeGreaterThanOrEqual(2);
    expect(before).toContain('public.compile_runs.subject');
    expect(before).toContain('public.webhooks.subject');

    expect((await canon.request(`/v1/subjects/${enc(subject)}`, { method: 'DELETE', key: owner })).status).toBe(200);
    expect(await placesNaming(marker)).toEqual([]);
    expect((await canon.request(`/v1/jobs/${one}`, { key: owner })).status).toBe(404);
    expect((await canon.request(`/v1/jobs/${many}`, { key: owner })).status).toBe(404);
    // Other subjects keep their rows, and the webhook that follows everything stays.
    expect(await placesNaming('customer:kept')).not.toEqual([]);
    const hooks = (await (await canon.request('/v1/webhooks', { key: owner })).json()).webhooks as Array<{ url: string }>;
    expect(hooks.map((h) => h.url)).toEqual(['http://127.0.0.1:9/all']);
  });

  it('by user: a subject only they wrote leaves no compile audit, job or row naming it', async () => {
    const marker = 'vx4davesubject';
    const dave = (await canon.key('member', { user: 'dave' })).key;
    const trent = (await canon.key('member', { user: 'trent' })).key;
    await canon.request('/v1/episodes?compile=wait', { key: dave, json: ep('d-1', `note:${marker}`, `${marker} value`, { scope: 'personal' }) });
    await canon.request('/v1/episodes?compile=wait', { key: dave, json: ep('d-2', `project:${marker}-shared`, 'dave says') });
    await canon.request('/v1/episodes?compile=wait', { key: trent, json: ep('t-1', `project:${marker}-shared`, 'trent says') });
    const job = (await (await canon.request('/v1/compile', { key: dave, json: { subject: `note:${marker}`, async: true } })).json()).job_id as string;
    await settled(job, dave);

    const res = await canon.request('/v1/erasures', { key: owner, json: { user: 'dave' } });
    expect(res.status).toBe(200);
    // The shared subject stays (trent's episode is in it); dave's own subject is gone everywhere.
    expect(await placesNaming(`note:${marker}`)).toEqual([]);
    expect(await placesNaming(`${marker} value`)).toEqual([]);
    expect(await placesNaming('dave says')).toEqual([]);
    expect(await placesNaming('trent says')).not.toEqual([]);
    expect((await canon.request(`/v1/jobs/${job}`, { key: owner })).status).toBe(404);
  });
});
