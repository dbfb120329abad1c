import { describe, expect, it } from 'vitest';
import { canonSecretFindings, DEFAULT_POLICY_SET, extract, readDocument, REDACTION_MARKER, redactionMarker, toEnvelope, EpisodeInput, type Envelope } from '@canon/core';
import { PLANTED_SECRETS, plantedKubeconfig } from '@canon/testing';
import { detectSecrets, redactEnvelopes } from './secrets.js';

// The shared planted secrets, and a short private key body: the preset misses blocks this small.
export const PLANTED = { ...PLANTED_SECRETS, keyBody: 'MIIEowIBAAKCAQEAx7qq0b8s9QmLk' + 'Wq2Z3g7Fm2abcdefABCDEF0123456789' };
const { dbPassword, stripe, github, npm, keyBody, kubeKey, kubeToken } = PLANTED;
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${keyBody}\n${keyBody}\n-----END RSA PRIVATE KEY-----`;
const kubeconfig = plantedKubeconfig();

async function rules(text: string): Promise<string[]> {
  const [found] = await detectSecrets([text]);
  return found!.map((f) => f.rule);
}

function envelope(input: Record<string, unknown>): Envelope {
  return toEnvelope(EpisodeInput.parse({ idempotency_key: 'k1', subject: 'service:billing', ...input }), 'w1', { role: 'agent', user: null });
}

describe('a redacted file still reads', () => {
  it('keeps the quotes around a connection string, and reads a marker with the rest of a URL as a string', async () => {
    const url = `postgres://app:${dbPassword}@db.internal:5432/billing`;
    for (const [path, text, facts] of [
      ['values.yaml', `db:\n  url: "${url}"\n  pool: 5\n`, ['db.url', 'db.pool']],
      ['single.yaml', `db:\n  url: '${url}'\n  pool: 5\n`, ['db.url', 'db.pool']],
      ['appsettings.json', `{"db": {"url": "${url}", "pool": 5}}`, ['db.url', 'db.pool']],
      ['config.toml', `[db]\nurl = "${url}"\npool = 5\n`, ['db.url', 'db.pool']],
      ['cache.yml', `cache:\n  url: redis://default:${dbPassword}@redis.internal:6379/0\n  ttl: 60\n`, ['cache.url', 'cache.ttl']],
      ['.env.example', `DATABASE_URL="${url}"\nPOOL=5\n`, ['DATABASE_URL', 'POOL']],
    ] as const) {
      const [r] = await redactEnvelopes([envelope({ kind: 'document', body: { path, text } })]);
      const stored = r!.envelope.body.text as string;
      expect(stored, path).not.toContain(dbPassword);
      const read = readDocument(path, stored);
      expect(read.dropped, path).toEqual({});
      expect(read.facts.map((f) => f.predicate), path).toEqual(facts);
      // The value is the marker alone (the URL's path kept beside it), with no quote of the file's.
      const value = String(read.facts[0]!.value);
      expect(value, path).toMatch(/^\[redacted:[a-z-]+:[cbdefghijklnrtuv]{12}\](?:\/0)?$/);
    }
  });
});

describe('secret detection', () => {
  it('finds each kind: recommended preset and Canon rules', async () => {
    expect(await rules(`DATABASE_URL=postgres://admin:${dbPassword}@db.internal/prod`)).toEqual(['database-connection-string']);
    expect(await rules(`STRIPE_KEY=${stripe}`)).toEqual(['stripe']);
    expect(await rules(`the bot uses ${github} to comment`)).toEqual(['github']);
    expect(await rules(pem)).toEqual(['private-key']);
    expect(await rules(`//registry.example.com/:_authToken=${npm}\n`)).toEqual(['npmrc-auth-token']);
    expect(await rules(`amqp://worker:${dbPassword}@mq.internal:5672`)).toEqual(['connection-string']);
    expect((await rules(kubeconfig)).sort()).toEqual(['kubeconfig-credential', 'kubeconfig-credential']);
  });

  it('each Canon rule alone', () => {
    const spans = (text: string) => canonSecretFindings(text).map((f) => [f.rule, text.slice(f.start, f.end)]);
    expect(spans(`redis://:${dbPassword}@cache.internal:6379/0`)).toEqual([['connection-string', `redis://:${dbPassword}@cache.internal:6379`]]);
    expect(spans(`x\n${pem}\ny`)).toEqual([['private-key', pem]]);
    // A block cut short is a secret to its end.
    expect(spans(`-----BEGIN OPENSSH PRIVATE KEY-----\n${keyBody}`)).toEqual([['private-key', `-----BEGIN OPENSSH PRIVATE KEY-----\n${keyBody}`]]);
    expect(spans(`_auth = ${npm}`)).toEqual([['npmrc-auth-token', npm]]);
    expect(spans(kubeconfig)).toEqual([
      ['kubeconfig-credential', kubeKey],
      ['kubeconfig-credential', kubeToken],
    ]);
  });

  it('hides the whole of an AWS secret key written as a YAML or JSON setting, not its first characters', async () => {
    // secretlint's AWS rule ends its match 17 characters into the key after `: `: 23 stayed stored.
    const key = ['Gq5Nu7gENLAvBi5yk6g1', 'L7LnrTJsiU69CHCLOA0m'].join('');
    for (const text of [`aws:\n  aws_secret_access_key: ${key}\n  region: eu-west-1\n`, `AWS_SECRET_ACCESS_KEY: ${key}`, `secret_access_key: ${key}`, `{"aws_secret_access_key": "${key}"}`, `aws_secret_access_key = ${key}`]) {
      const [found] = await detectSecrets([text]);
      expect(found!.length, text).toBeGreaterThan(0);
      const kept = found!.reduceRight((t, f) => t.slice(0, f.start) + t.slice(f.end), text);
      expect(kept, text).not.toMatch(/[A-Za-z0-9/+]{6,}OA0m|iU69/);
    }
  });

  it('hides a credential named for what it is in the spellings settings and documents use', async () => {
    const token = ['CvpKg5EeQw8Zr3Lm', 'Nx7Ty2Ub9Vd4Hs6J'].join('');
    for (const text of [
      `api_key: ${token}`, `apiKey: ${token}`, `API_KEY: ${token}`, `token: ${token}`, `access_token: ${token}`, `master_key: ${token}`,
      `{"apiKey": "${token}"}`, `{"accessToken": "${token}"}`, `{"token": "${token}"}`, `{"privateKey": "${token}"}`, `{"pass": "${token}"}`, `{"DB_PASS": "${token}"}`,
      `SECRET_KEY=${token}`, `DJANGO_SECRET_KEY=${token}`, `SECRET_KEY = '${token}'`, `MASTER_KEY=${token}`, `secret_key=${token}`,
      `ENV API_KEY ${token}`, `- API token: ${token}`, `- **API key:** ${token}`, `- Deploy key: ${token}`,
    ]) {
      const [found] = await detectSecrets([text]);
      expect(found!.map((f) => text.slice(f.start, f.end)), text).toEqual([token]);
    }
    // Counts, flags, placeholders and keys that are no credential stay.
    for (const text of ['token: 5', 'max_tokens: 4096', 'api_key: true', 'keyboard: us', 'primary_key: id', 'token: ${TOKEN}', '- Sort key: created_at', '- Primary key: id']) {
      expect({ text, rules: await rules(text) }).toEqual({ text, rules: [] });
    }
  });

  it('leaves ordinary text alone', async () => {
    for (const text of [
      'The password policy requires 12 characters.',
      'password: see the vault',
      'token: the bearer header carries it',
      'The database runs on db.internal.example.com, port 5432.',
      'See https://example.com/docs/setup and postgres://db.internal/prod',
      'mailto:ops@example.com',
      '//registry.npmjs.org/:_authToken=${NPM_TOKEN}',
      'postgres://admin:${DB_PASSWORD}@db.internal/prod',
      'ssh-keygen writes -----BEGIN PUBLIC KEY----- blocks',
      // Names, not settings: YAML reads `key: value` only with a space after the colon. Subjects
      // such as these were filed under a marker their writers could not name.
      'secret:diary',
      'password:reset-flow',
      'pwd:home',
      'passwd:policy',
      'token:abcdef1234567890xyz',
    ]) {
      expect({ text, rules: await rules(text) }).toEqual({ text, rules: [] });
    }
  });

  it('maps matches back to their strings when many are linted together', async () => {
    const texts = ['nothing here', `a ${stripe} b`, '', 'still nothing', `${github}`];
    const found = await detectSecrets(texts);
    expect(found.map((f) => f.map((x) => [x.rule, texts[found.indexOf(f)]!.slice(x.start, x.end)]))).toEqual([
      [],
      [['stripe', stripe]],
      [],
      [],
      [['github', github]],
    ]);
  });
});

describe('redaction of an envelope', () => {
  it('replaces secrets in every string, at any depth, keys included, and says where', async () => {
    const [r] = await redactEnvelopes([
      envelope({
        source_ref: `https://ci:${dbPassword}@ci.internal/job/1`,
        body: {
          text: `deploy with ${stripe}`,
          claims: [{ predicate: 'bot token', value: { nested: [{ deep: github }] }, qualifiers: { env: `k=${npm}` }, text: `the token is ${github}` }],
          [stripe]: 'a key that is a secret',
        },
      }),
    ]);
    const stored = JSON.stringify(r!.envelope);
    for (const secret of [dbPassword, stripe, github]) expect(stored).not.toContain(secret);
    expect(r!.envelope.body.text).toBe(`deploy with ${redactionMarker('w1', 'stripe', stripe)}`);
    expect(r!.redactions).toEqual([
      { rule: 'connection-string', path: 'source_ref' },
      { rule: 'stripe', path: 'body.text' },
      { rule: 'github', path: 'body.claims.0.value.nested.0.deep' },
      { rule: 'github', path: 'body.claims.0.text' },
      { rule: 'stripe', path: 'body.{}' },
    ]);
    // The qualifier `k=<token>` is no npmrc line and no known token shape: left as it is.
    expect(stored.match(REDACTION_MARKER)).toHaveLength(5);
  });

  it('is deterministic, per workspace, and a marker is never a secret again', async () => {
    const e = envelope({ body: { text: `key ${stripe}` } });
    const [a] = await redactEnvelopes([e]);
    const [b] = await redactEnvelopes([e]);
    expect(a).toEqual(b);
    const marker = redactionMarker('w1', 'stripe', stripe);
    expect(marker).toMatch(/^\[redacted:stripe:[cbdefghijklnrtuv]{12}\]$/);
    expect(redactionMarker('w2', 'stripe', stripe)).not.toBe(marker);
    const [again] = await redactEnvelopes([a!.envelope]);
    expect(again!.redactions).toEqual([]);
    expect(again!.envelope).toEqual(a!.envelope);
    // Nor where a rule's pattern would take the marker for a value (`token: [redacted:…]`).
    const [kube] = await redactEnvelopes([envelope({ body: { text: kubeconfig } })]);
    expect(kube!.redactions).toHaveLength(2);
    const [kubeAgain] = await redactEnvelopes([kube!.envelope]);
    expect(kubeAgain!.redactions).toEqual([]);
  });

  it('writes the hash in letters, so the extractor never reads a marker as a number', async () => {
    // A message: its text goes through the slot extractor, which reads numbers (a document is
    // read by its format instead).
    const [r] = await redactEnvelopes([envelope({ kind: 'message', body: { text: `DATABASE_URL=postgres://admin:${dbPassword}@db.internal/prod\nThe bot token is ${github}.` } })]);
    const episode = { ...r!.envelope, id: '00000000-0000-0000-0000-000000000000', occurred_at: '2024-01-01T00:00:00.000Z', occurred_at_defaulted: false, ingested_at: '2024-01-01T00:00:00.000Z', content_hash: '' };
    const claims = extract(episode, DEFAULT_POLICY_SET);
    expect(claims.map((c) => c.fact_key.predicate)).toEqual(['note', 'note']);
  });

  it('an envelope without secrets comes back as it was', async () => {
    const e = envelope({ body: { text: 'The staging deploy runs on Tuesday.' } });
    const [r] = await redactEnvelopes([e]);
    expect(r).toEqual({ envelope: e, redactions: [] });
  });
});

describe('secret detection keeps nothing per scan', () => {
  it('leaves no performance marks behind, however many texts it scans', async () => {
    const { performance } = await import('node:perf_hooks');
    performance.clearMarks();
    for (let i = 0; i < 50; i += 1) await detectSecrets([`deploy note ${i}`, `password=${dbPassword}`]);
    // A server scans every string it is sent: anything kept per scan grows for the life of the process.
    expect(performance.getEntriesByType('mark')).toHaveLength(0);
  });
});

describe('a token with an invisible character inside, or in full-width letters', () => {
  const hide = (token: string, at: number, ch: string) => token.slice(0, at) + ch + token.slice(at);
  const disguised: Array<[string, string]> = [
    ['zero-width space', hide(github, 24, '\u200b')],
    ['soft hyphen', hide(github, 10, '\u00ad')],
    ['byte order mark', hide(github, 30, '\ufeff')],
    ['word joiner', hide(stripe, 15, '\u2060')],
    ['zero-width space in a Stripe key', hide(stripe, 20, '\u200b')],
    ['percent-escaped underscore, as in a URL', github.replace('_', '%5F')],
  ];
  it.each(disguised)('is redacted whole (%s), and nothing the compiler reads of it gives the token back', async (_, text) => {
    const [r] = await redactEnvelopes([envelope({ body: { text: `The deploy token is ${text} for now.` } })]);
    expect(r!.redactions.length).toBeGreaterThan(0);
    const stored = r!.envelope.body.text as string;
    expect(stored).toMatch(/\[redacted:[a-z-]+:[cbdefghijklnrtuv]{12}\]/);
    // Folded as the compiler folds text, no trace of the token is left.
    const folded = decodeURIComponent(stored.replace(/[\u00ad\u180e\u200b\u2060-\u2064\ufeff]/g, ''));
    expect(folded).not.toContain(github.slice(4, 20));
    expect(folded).not.toContain(stripe.slice(8, 24));
    const episode = { ...r!.envelope, id: '00000000-0000-0000-0000-000000000000', occurred_at: '2024-01-01T00:00:00.000Z', occurred_at_defaulted: false, ingested_at: '2024-01-01T00:00:00.000Z', content_hash: '' };
    expect(JSON.stringify(extract(episode, DEFAULT_POLICY_SET))).not.toMatch(/ghp_|sk_live_/);
  });

  it('reads a text with emoji joiners and no secret as before: nothing found', async () => {
    expect(await rules('The on-call team is 👩\u200d💻 and the window is Tuesday.')).toEqual([]);
  });
});

describe('a secret written in base64', () => {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const spans = async (text: string) => (await detectSecrets([text]))[0]!.map((f) => [f.rule, text.slice(f.start, f.end)]);

  it('is found decoded, by every rule, and the whole run is replaced', async () => {
    // A token pasted encoded, under a name no rule reads as a credential's.
    expect(await spans(`The deploy handle is ${b64(github)} until Friday.`)).toEqual([['base64-github', b64(github)]]);
    // A Kubernetes Secret's data, a key no rule knows the name of.
    const manifest = ['apiVersion: v1', 'kind: Secret', 'data:', `  config.env: ${b64(`DB_PASSWORD=${dbPassword}\nMODE=prod\n`)}`].join('\n');
    expect(await spans(manifest)).toEqual([['base64-connection-password', b64(`DB_PASSWORD=${dbPassword}\nMODE=prod\n`)]]);
    // A registry's config, encoded whole as a cluster stores it; the URL-safe alphabet too.
    const docker = JSON.stringify({ auths: { 'registry.example.com': { auth: b64(`deploy:${dbPassword}-registry`) } } });
    expect(await spans(`.dockerconfigjson: ${b64(docker)}`)).toEqual([['base64-token-setting', b64(docker)]]);
    expect(await spans(`ref=${b64url(stripe + '?')}`)).toEqual([['base64-stripe', b64url(stripe + '?')]]);
    // One a rule finds as written keeps its name (the marker Canon wrote before stays the same).
    expect(await spans(`token=${b64url(stripe + '?')}`)).toEqual([['token-setting', b64url(stripe + '?')]]);
    // After a path's slash.
    expect(await spans(`GET /v1/handoff/${b64(github)}`)).toEqual([['base64-github', b64(github)]]);
  });

  it('leaves encoded text without a secret, hashes, identifiers and binary data alone', async () => {
    const ordinary = [
      `The note reads ${b64('The staging deploy runs on Tuesday at 10:00.')} in the ticket.`,
      'sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'commit 3f1c2a9be4d07c61a0b5e5d2f0c4a8e1b7d9c3a2 fixed the Donaudampfschifffahrtsgesellschaft typo',
      'ids 6f1c7a2e-9b3d-4c5e-8f7a-1b2c3d4e5f60 and AbstractSingletonProxyFactoryBeanImpl',
      `logo ${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 40 }, (_, i) => (i * 37) % 256)]).toString('base64')}`,
    ];
    for (const text of ordinary) expect(await spans(text), text).toEqual([]);
  });

  it('decodes once: a secret encoded twice is not read, and a long encoded text costs one pass', async () => {
    expect(await spans(`handle ${b64(b64(github))}`)).toEqual([]);
    const long = b64(`${'The on-call rota is in the runbook. '.repeat(20_000)}api_key=${github}`);
    expect(await spans(`blob ${long}`)).toEqual([['base64-github', long]]);
  });

  it('a stored envelope keeps no trace of the encoded token', async () => {
    const [r] = await redactEnvelopes([envelope({ body: { text: `handle ${b64(github)}`, claims: [{ predicate: 'token', value: b64(stripe) }] } })]);
    expect(r!.redactions.map((x) => x.rule).sort()).toEqual(['base64-github', 'base64-stripe']);
    expect(JSON.stringify(r!.envelope)).not.toContain(b64(github).slice(0, 20));
    expect(JSON.stringify(r!.envelope)).not.toContain(b64(stripe).slice(0, 20));
  });
});
