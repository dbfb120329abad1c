import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, EpisodeInput, toEnvelope } from '@canon/core';
import { syncConnector, type Principal } from '@canon/runtime';
import { withWorkspace } from '@canon/runtime/internals';
import { appendEpisodes } from '@canon/store';
import { PLANTED_SECRETS, plantedKubeconfig, runCanon, startTestCanon, type TestCanon } from '@canon/testing';

// The shared planted secrets, and a private key body long enough for the preset's own rule.
const { dbPassword, stripe, github, npm: npmToken, kubeKey, kubeToken } = PLANTED_SECRETS;
const keyLine = 'MIIEowIBAAKCAQEAx7qq0b8s9QmLkWq2Z3g7Fm2abcdefABCDEF0123456789abcd';
// A runbook's table of accounts: the password column's cells (no rule of secretlint's reads them).
const tablePassword = 'Tr0ub4dor&3x-staging';
const PLANTED = { dbPassword, stripe, github, npmToken, keyLine, kubeKey, kubeToken, tablePassword };

const FILES: Record<string, string> = {
  '.env': `DATABASE_URL=postgres://admin:${dbPassword}@db.internal/prod\nSTRIPE_KEY=${stripe}\n`,
  '.env.example': 'DATABASE_URL=postgres://localhost:5432/dev\nSTRIPE_KEY=\n',
  'id_rsa': `-----BEGIN RSA PRIVATE KEY-----\n${keyLine}\n${keyLine.split('').reverse().join('')}\n${keyLine}\n-----END RSA PRIVATE KEY-----\n`,
  'notes.md': `# Bot\n\nThe release bot authenticates with ${github} until it is rotated.\nDeploys happen on Tuesday.\n`,
  '.npmrc': `registry=https://registry.example.com/\n//registry.example.com/:_authToken=${npmToken}\n`,
  'kubeconfig': `${plantedKubeconfig()}\n`,
  'accounts.md': `# Accounts\n\n| Service | User | Password |\n|---|---|---|\n| staging db | admin | ${tablePassword} |\n| wiki | - | see the vault |\n`,
};

let canon: TestCanon;
let owner: { key: string; principal: Principal };
let member: string;
let dir: string;
let home: string;

beforeAll(async () => {
  // The queue on (no workers): compile jobs land in pg-boss's tables, which are searched too.
  canon = await startTestCanon({ queue: true, workers: false });
  owner = await canon.key('owner');
  member = (await canon.key('member', { user: 'mallory' })).key;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-secrets-'));
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-secrets-home-'));
  for (const [name, content] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), content);
});
afterAll(async () => {
  await canon?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

/** Every text-like column of every table of every schema (pgboss included) holding `value`. */
async function whereIs(value: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: canon.db.url });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ table_schema: string; table_name: string; column_name: string }>(
      `SELECT c.table_schema, c.table_name, c.column_name
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE t.table_type = 'BASE TABLE'
          AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
          AND c.data_type IN ('text', 'jsonb', 'json', 'character varying', 'character', 'ARRAY', 'USER-DEFINED')`,
    );
    expect(columns.some((c) => c.table_schema === 'pgboss')).toBe(true);
    expect(columns.some((c) => c.table_name === 'episodes' && c.column_name === 'body')).toBe(true);
    const found: string[] = [];
    for (const c of columns) {
      const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${q(c.table_schema)}.${q(c.table_name)} WHERE strpos(${q(c.column_name)}::text, $1) > 0`,
        [value],
      );
      if (rows[0]!.n > 0) found.push(`${c.table_schema}.${c.table_name}.${c.column_name}`);
    }
    return found;
  } finally {
    await client.end();
  }
}

/**
 * The stored episodes of a workspace, read straight from the table: the log's paging waits for
 * every older transaction of the cluster, which other test files keep open.
 */
async function stored(workspace: string, subject?: string): Promise<Array<{ idempotency_key: string; source_ref: string | null; body: { text?: string } }>> {
  const { rows } = await canon.runtime.pool.query(
    `SELECT idempotency_key, source_ref, body FROM episodes WHERE workspace_id = $1 AND ($2::text IS NULL OR subject = $2) ORDER BY idempotency_key`,
    [workspace, subject ?? null],
  );
  return rows;
}

const sync = (id: string, config: Record<string, unknown> = {}) =>
  syncConnector(canon.runtime, { workspace: 'default', connector: 'workspace', config: { path: dir, id, ...config } });

describe('secrets never become memories', () => {
  it('a workspace scan skips secret files, reads .env.example, redacts what the files it reads hold, and re-syncs as nothing new', async () => {
    const first = await sync('app');
    expect(first.skipped).toMatchObject({ secret_file: 4 }); // .env, id_rsa, .npmrc, kubeconfig
    expect(first).toMatchObject({ created: 3, redacted: 2 }); // .env.example, notes.md (its token), accounts.md (its table)
    const episodes = await stored(owner.principal.workspace_id);
    expect(episodes.map((e) => e.source_ref).sort()).toEqual(['.env.example', 'accounts.md', 'notes.md']);
    expect(episodes.find((e) => e.source_ref === 'accounts.md')!.body.text).toMatch(/\| staging db \| admin \| \[redacted:table-credential:[cbdefghijklnrtuv]{12}\] \|\n\| wiki \| - \| see the vault \|/);
    expect(episodes.find((e) => e.source_ref === '.env.example')!.body.text).toBe(FILES['.env.example']);
    expect(episodes.find((e) => e.source_ref === 'notes.md')!.body.text).toMatch(/authenticates with \[redacted:github:[cbdefghijklnrtuv]{12}\] until/);

    // Read everything, as someone who asked for it would: each secret is still redacted.
    const all = await sync('all', { includeSecretFiles: true });
    expect(all).toMatchObject({ created: 7, redacted: 6 });
    for (const subject of ['workspace:app:notes.md', 'workspace:all:notes.md', 'workspace:all:.env', 'workspace:all:id_rsa', 'workspace:all:.npmrc', 'workspace:all:kubeconfig', 'workspace:all:.env.example']) {
      await canon.runtime.compile(owner.principal, { subject });
    }
    // The facts of the files are still there, around the markers.
    const env = await canon.runtime.memories(owner.principal, 'workspace:all:.env');
    const envText = JSON.stringify(env.memories);
    expect(envText).toMatch(/\[redacted:database-connection-string:[cbdefghijklnrtuv]{12}\]/);
    expect(envText).toMatch(/\[redacted:stripe:[cbdefghijklnrtuv]{12}\]/);
    const search = await canon.request(`/v1/search?q=${encodeURIComponent('redacted')}`, { key: owner.key });
    expect(search.status).toBe(200);

    for (const [name, value] of Object.entries(PLANTED)) expect({ name, in: await whereIs(value) }).toEqual({ name, in: [] });
    // Nor the db host of the connection string, which is part of the credential.
    expect(await whereIs('db.internal/prod')).toEqual([]);

    // A re-sync from scratch (cursor reset) re-reads every file: every item is a duplicate.
    for (const id of ['app', 'all']) {
      await canon.runtime.pool.query(`DELETE FROM connector_cursors WHERE instance_id = $1`, [`workspace:${id}`]);
    }
    expect(await sync('app')).toMatchObject({ created: 0, duplicates: 3 });
    expect(await sync('all', { includeSecretFiles: true })).toMatchObject({ created: 0, duplicates: 7, key_conflicts: [] });
  });

  it('an HTTP post stores the token redacted and says so; posting it again is a duplicate', async () => {
    const ep = { idempotency_key: 'bot-token-1', subject: 'service:bot', body: { text: `The bot token is ${github}.`, claims: [{ predicate: 'token', value: { github } }] } };
    const res = await canon.request('/v1/episodes', { key: owner.key, json: ep });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 1, redacted: 1, refused: 0 });
    expect(body.items[0].redactions).toEqual([
      { rule: 'github', path: 'body.text' },
      { rule: 'github', path: 'body.claims.0.value.github' },
    ]);
    expect(JSON.stringify(body)).not.toContain(github);

    const again = await (await canon.request('/v1/episodes', { key: owner.key, json: ep })).json();
    expect(again).toMatchObject({ created: 0, duplicates: 1, items: [{ status: 'duplicate', episode_id: body.items[0].episode_id }] });
    const bot = await stored(owner.principal.workspace_id, 'service:bot');
    expect(bot).toHaveLength(1);
    expect(bot[0]!.body.text).toMatch(/^The bot token is \[redacted:github:[cbdefghijklnrtuv]{12}\]\.$/);
    expect(await whereIs(github)).toEqual([]);

    // The OpenAPI document carries the new fields.
    const doc = JSON.stringify(await (await canon.request('/openapi.json')).json());
    expect(doc).toContain('"redactions"');
    expect(doc).toContain('/v1/secrets');
  });

  it('a credential in a structured body — a member named for one, a claim whose predicate names one — is redacted at the door, and a reader finds it nowhere', async () => {
    const secret = 'Zx9kq2LmP0abcd';
    const episodes = [
      { idempotency_key: 'st-1', subject: 'sec:1', body: { claims: [{ predicate: 'credentials', value: { user: 'admin', password: secret } }] } },
      { idempotency_key: 'st-2', subject: 'sec:2', body: { claims: [{ predicate: 'db password', value: secret }] } },
      { idempotency_key: 'st-3', subject: 'sec:3', body: { claims: [{ predicate: 'x', value: 'y', qualifiers: { password: secret } }] } },
      { idempotency_key: 'st-4', subject: 'sec:4', body: { text: 'x', notes: { db_pw: secret, api_key: 'a7c3e9f1b5d24e6a8c0b7a6d5e4f3a9z' } } },
      // A policy, a placeholder, a flag: no credentials.
      { idempotency_key: 'st-5', subject: 'sec:5', body: { claims: [{ predicate: 'password policy', value: '12 characters' }, { predicate: 'db password', value: '${DB_PASSWORD}' }, { predicate: 'password', value: 'required' }] } },
    ];
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner.key, json: { episodes } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 5, redacted: 4 });
    expect(body.items.map((i: { redactions?: unknown[] }) => i.redactions ?? [])).toEqual([
      [{ rule: 'structured-credential', path: 'body.claims.0.value.password' }],
      [{ rule: 'structured-credential', path: 'body.claims.0.value' }],
      [{ rule: 'structured-credential', path: 'body.claims.0.qualifiers.password' }],
      [
        { rule: 'structured-credential', path: 'body.notes.db_pw' },
        { rule: 'structured-credential', path: 'body.notes.api_key' },
      ],
      [],
    ]);
    expect(await whereIs(secret)).toEqual([]);
    expect(await whereIs('a7c3e9f1b5d24e6a8c0b7a6d5e4f3a9z')).toEqual([]);
    const reader = (await canon.key('reader', { user: 'rita' })).key;
    const found = await (await canon.request(`/v1/search?q=${secret}`, { key: reader })).text();
    expect(found).not.toContain(secret);
    const kept = await (await canon.request(`/v1/subjects/${encodeURIComponent('sec:5')}/memories`, { key: reader })).text();
    expect(kept).toContain('12 characters');
    expect(kept).toContain('${DB_PASSWORD}');
  });

  it('a password given as a connection setting (a URL query, a libpq string) is redacted at the door', async () => {
    const texts = [
      `postgres://db.internal:5432/prod?user=admin&password=${dbPassword}`,
      `host=db.internal user=admin password=${dbPassword} dbname=prod`,
    ];
    const res = await canon.request('/v1/episodes', { key: owner.key, json: { episodes: texts.map((text, i) => ({ idempotency_key: `dsn-${i}`, subject: 'service:dsn', body: { text } })) } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 2, redacted: 2 });
    expect(body.items.map((i: { redactions: unknown }) => i.redactions)).toEqual([[{ rule: 'connection-password', path: 'body.text' }], [{ rule: 'connection-password', path: 'body.text' }]]);
    expect(await whereIs(dbPassword)).toEqual([]);
  });

  it("a runbook's Markdown labels (`**Admin password:** …`) are redacted at the door; its prose about passwords is kept", async () => {
    const text = [
      '# Staging runbook',
      '',
      `**Admin password:** ${dbPassword}`,
      `- Wi-Fi passphrase: \`${dbPassword}x\``,
      '- **Password:** see the team vault',
      'The staging deploy runs on Tuesday.',
    ].join('\n');
    const doc = { idempotency_key: 'runbook-1', subject: 'docs:runbook.md', kind: 'document', snapshot: true, body: { path: 'runbook.md', text } };
    const res = await canon.request('/v1/episodes', { key: owner.key, json: { episodes: [doc] } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 1, redacted: 1 });
    expect(body.items[0].redactions).toEqual([
      { rule: 'connection-password', path: 'body.text' },
      { rule: 'connection-password', path: 'body.text' },
    ]);
    const [episode] = await stored(owner.principal.workspace_id, 'docs:runbook.md');
    expect(episode!.body.text).toContain('- **Password:** see the team vault');
    expect(episode!.body.text).toContain('The staging deploy runs on Tuesday.');
    expect(episode!.body.text).toMatch(/^\*\*Admin password:\*\* \[redacted:connection-password:[a-z]+\]$/m);
    await canon.runtime.compile(owner.principal, { subject: 'docs:runbook.md' });
    expect(await whereIs(dbPassword)).toEqual([]);
  });

  it('a setting named for a secret or a token, a bearer header, a token in a clone URL: redacted at the door (`token-setting`)', async () => {
    const token = 'f3a9c2e7b1d44e0a9c8b7a6d5e4f3a2b';
    const texts = [`JWT_SECRET=${token}`, `curl -H "Authorization: Bearer ${token}" https://api.example.com/v1`, `git clone https://${token}@github.com/acme/api.git`];
    const res = await canon.request('/v1/episodes', { key: owner.key, json: { episodes: texts.map((text, i) => ({ idempotency_key: `tok-${i}`, subject: 'service:tokens', body: { text } })) } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 3, redacted: 3 });
    expect(body.items.map((i: { redactions: Array<{ rule: string }> }) => i.redactions.map((r) => r.rule))).toEqual([['token-setting'], ['token-setting'], ['token-setting']]);
    expect(await whereIs(token)).toEqual([]);
  });

  it("a config file's AWS key and API tokens, as YAML and JSON write them, leave no part of themselves anywhere", async () => {
    // An outside scan found 23 of an AWS key's 40 characters stored and searchable, and 13 of 21
    // planted credentials (`api_key: …`, `"accessToken": "…"`, `SECRET_KEY=…`) recallable as facts.
    const aws = ['Gq5Nu7gENLAvBi5yk6g1', 'L7LnrTJsiU69CHCLOA0m'].join('');
    const token = ['CvpKg5EeQw8Zr3Lm', 'Nx7Ty2Ub9Vd4Hs6J'].join('');
    const yaml = `aws:\n  aws_secret_access_key: ${aws}\n  region: eu-west-1\napi_key: ${token}\n`;
    const json = JSON.stringify({ api: { accessToken: token, url: 'https://api.example.com' } });
    const docs = [
      { idempotency_key: 'cfg-yaml', subject: 'config:settings.yaml', kind: 'document', snapshot: true, body: { path: 'settings.yaml', text: yaml } },
      { idempotency_key: 'cfg-json', subject: 'config:config.json', kind: 'document', snapshot: true, body: { path: 'config.json', text: json } },
    ];
    const res = await canon.request('/v1/episodes?compile=wait', { key: owner.key, json: { episodes: docs } });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = await res.json();
    expect(answer, JSON.stringify(answer).slice(0, 2000)).toMatchObject({ created: 2, redacted: 2, compiled: [{}, {}] });
    for (const part of [aws.slice(-12), token.slice(-12)]) expect(await whereIs(part), part).toEqual([]);
    // The YAML still parses: its other settings are facts.
    const memories = (await (await canon.request(`/v1/subjects/${encodeURIComponent('config:settings.yaml')}/memories`, { key: owner.key })).json()).memories as Array<{ predicate: string }>;
    expect(memories.map((m) => m.predicate), JSON.stringify(answer.compiled) + JSON.stringify(answer.items)).toContain('aws.region');
  });

  it('an episode stored before a rule found its secret: the same episode sent again is a duplicate of it, not a key conflict', async () => {
    const older = await canon.key('owner', { workspace: 'older' });
    const token = 'c0ffee0ddba11f00dfeedface0123456789';
    const ep = { idempotency_key: 'before-rule-1', subject: 'service:old', occurred_at: '2026-01-05T10:00:00.000Z', body: { text: `export GITHUB_TOKEN=${token}` } };
    // Stored by an earlier Canon that had no rule for it: the text as sent.
    const first = await canon.request('/v1/episodes', { key: older.key, json: { ...ep, idempotency_key: 'before-rule-0', body: { text: 'The old service runs on Tuesday.' } } });
    expect(first.status).toBe(200);
    await canon.runtime.pool.query(
      `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body, occurred_at, occurred_at_defaulted, observed_at, sequence, lineage, snapshot, actor_role, actor_user, source_ref, content_hash, actor_key)
       SELECT workspace_id, gen_random_uuid(), source, 'before-rule-1', subject, scope, owner, kind, $1::jsonb, occurred_at, occurred_at_defaulted, observed_at, sequence, 'api:before-rule-1', snapshot, actor_role, actor_user, source_ref, 'stale-hash', actor_key
       FROM episodes WHERE workspace_id = 'older' AND idempotency_key = 'before-rule-0'`,
      [JSON.stringify(ep.body)],
    );
    const again = await canon.request('/v1/episodes', { key: older.key, json: ep });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await again.json()).toMatchObject({ created: 0, duplicates: 1, items: [{ status: 'duplicate', redactions: [{ rule: 'token-setting', path: 'body.text' }] }] });
    // Other content under the key is still a conflict.
    const other = await canon.request('/v1/episodes', { key: older.key, json: { ...ep, body: { text: `export GITHUB_TOKEN=${token}0` } } });
    expect(other.status).toBe(409);
  });

  it('under a refuse policy: one episode posted alone answers 400 naming the rule; in a batch the item is refused and the rest proceeds', async () => {
    const strict = await canon.key('owner', { workspace: 'strict' });
    const put = await canon.request('/v1/policies', { method: 'PUT', key: strict.key, json: { secrets: 'refuse' } });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ own: { secrets: 'refuse' }, secrets: 'refuse', changed: false, rebuild: { mode: 'none' } });

    const leaky = { idempotency_key: 'leak-1', subject: 'service:pay', body: { text: `STRIPE_KEY=${stripe}` } };
    const res = await canon.request('/v1/episodes', { key: strict.key, json: leaky });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await res.json();
    expect(problem).toMatchObject({ type: 'urn:canon:problem:secret_refused', status: 400, rule: 'stripe', path: 'body.text' });
    expect(JSON.stringify(problem)).not.toContain(stripe);

    const batch = await canon.request('/v1/episodes', {
      key: strict.key,
      json: { episodes: [leaky, { idempotency_key: 'clean-1', subject: 'service:pay', body: { text: 'Payouts run on Friday.' } }] },
    });
    expect(batch.status).toBe(200);
    expect(await batch.json()).toMatchObject({
      created: 1,
      refused: 1,
      items: [
        { index: 0, status: 'refused', episode_id: null, rule: 'stripe' },
        { index: 1, status: 'created' },
      ],
    });
    expect((await stored(strict.principal.workspace_id)).map((e) => e.idempotency_key)).toEqual(['clean-1']);
    expect(await whereIs(stripe)).toEqual([]);

    // The default workspace still redacts.
    const other = await canon.request('/v1/episodes', { key: owner.key, json: { ...leaky, idempotency_key: 'leak-default' } });
    expect(await other.json()).toMatchObject({ created: 1, redacted: 1 });
  });

  it('GET /v1/secrets and canon secrets scan list stored episodes that hold a secret, never the secret; a member gets 403', async () => {
    // A transaction left open elsewhere (as other test files do): the scan must not stop short of
    // what was committed after it began.
    const blocker = new pg.Client({ connectionString: canon.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT pg_current_xact_id()');
    // Setup: an episode stored as it would have been before redaction existed, straight into the log.
    const legacy = toEnvelope(
      EpisodeInput.parse({ idempotency_key: 'legacy-1', subject: 'service:legacy', body: { text: `old runbook: psql postgres://ops:${dbPassword}@db.legacy:5432/app` } }),
      owner.principal.workspace_id,
      { role: 'owner', user: null },
    );
    const id = randomUUID();
    await withWorkspace(canon.runtime.pool, owner.principal.workspace_id, (tx) =>
      appendEpisodes(tx, owner.principal.workspace_id, [{ id, envelope: legacy, content_hash: contentHash(legacy), actor_key: null }]),
    );

    expect((await canon.request('/v1/secrets', { key: member })).status).toBe(403);
    const res = await canon.request('/v1/secrets?subject=service%3Alegacy', { key: owner.key });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(dbPassword);
    expect(JSON.parse(text)).toEqual({
      findings: [
        {
          episode_id: id,
          source: 'api',
          idempotency_key: 'legacy-1',
          subject: 'service:legacy',
          log_position: expect.any(String),
          secrets: [{ rule: 'database-connection-string', path: 'body.text' }],
        },
      ],
      scanned: 1,
      next: null,
    });
    // The whole workspace, a page of two at a time: only the legacy episode holds a secret.
    let after: string | null = null;
    const ids: string[] = [];
    let pages = 0;
    do {
      const q: string = after ? `?limit=2&after=${encodeURIComponent(after)}` : '?limit=2';
      const page = await (await canon.request(`/v1/secrets${q}`, { key: owner.key })).json();
      ids.push(...page.findings.map((f: { episode_id: string }) => f.episode_id));
      after = page.next;
      pages += 1;
    } while (after);
    expect(ids).toEqual([id]);
    expect(pages).toBeGreaterThan(2);

    await blocker.query('ROLLBACK');
    await blocker.end();

    const env = { ...process.env, DATABASE_URL: canon.db.url, CANON_HOME: home, CANON_API_KEY: owner.key };
    const out = await runCanon(env, 'secrets', 'scan');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(id);
    expect(out.stdout).toContain('database-connection-string');
    expect(out.stdout).toContain('legacy-1');
    expect(out.stdout).not.toContain(dbPassword);
    const denied = await runCanon({ ...env, CANON_API_KEY: member }, 'secrets', 'scan');
    expect(denied.code).toBe(3);

    // Erase it as the README says; the scan comes back empty.
    expect((await canon.request('/v1/subjects/service%3Alegacy', { method: 'DELETE', key: owner.key })).status).toBe(200);
    const after2 = await runCanon(env, 'secrets', 'scan', '--subject', 'service:legacy');
    expect(after2.stdout).toContain('no secrets found');
    expect(await whereIs(dbPassword)).toEqual([]);
  });
});
