import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANON_SECRET_RULES, canonSecretFindings, encodedRuns, envelopeStrings, isDisguised, onePerSpan, outsideMarkers, pushEnvelopeCredentialFlags, pushEnvelopeTexts, redactionMarker, rulesOver } from './secrets.js';
import { EpisodeInput, toEnvelope } from './episode.js';
import { jsonValues } from './test-support.js';

/** Every rule run on the text, as canonSecretFindings ran them before it asked for their literals. */
function allRules(text: string) {
  const found = CANON_SECRET_RULES.flatMap((r) => r.find(text));
  return found.length === 0 ? found : outsideMarkers(text, onePerSpan(found));
}

// Pieces of what the rules look for — their literals whole and cut, credentials, kubeconfig
// lines, markers — joined in any order with ordinary text, so that texts near a finding are common.
const password = ['Tr0ub4dor', 'horse', 'staple'].join('-');
const fragment = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '://', ':/', '//', 'postgres://', 'amqp://worker:', `:${password}@`, '@db.internal', 'redis://:', '${PASSWORD}',
    '-----BEGIN', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', '-----BEGIN PRIVATE KEY BLOCK-----', 'MIIEowIBAAKCAQEAx7qq0b8s9QmLk',
    '_auth', '_authToken', '_password', '//registry.example.com/:', '_authToken=', ' = ', 'c2VjcmV0LXRva2VuLXZhbHVl', '"',
    'kind:', 'kind: Config', 'Config', 'users:', 'clusters:', 'client-key-data', 'client-key-data: ', 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt',
    'token: ', 'password:', '  - ', 'id-token: abc.def.ghi', ':', '\n', ' ', '\t', ';', "'",
    '?password=', '&PASSWORD=', ' pwd=', ';Pwd=', ' PassWord=', ';pwD=', 'passwd =', 'Password="', `=${password}`, '=$PGPASSWORD', '&', '?',
    redactionMarker('w1', 'connection-string', 'x'),
  ),
);
const text = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(''));

describe("Canon's secret rules, asked for their literals first", () => {
  it('find exactly what every rule run on the text finds', () => {
    fc.assert(
      fc.property(text, (t) => {
        const asked = rulesOver(t);
        expect(asked.length === 0 ? asked : outsideMarkers(t, onePerSpan(asked))).toEqual(allRules(t));
        // A disguised text (`%30token: …`) is also read as it decodes, which every rule run on
        // the text as written does not do: there the two may differ by design.
        if (!isDisguised(t)) expect(canonSecretFindings(t)).toEqual(allRules(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('read a disguised setting as it decodes', () => {
    // Found by the property above: `%30` decodes to `0`, and `0token: …` names a token.
    expect(canonSecretFindings('%30token: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt')).toEqual([{ rule: 'token-setting', start: 10, end: 46 }]);
  });

  it('each rule finds nothing in a text holding none of the literals it needs', () => {
    fc.assert(
      fc.property(text, (t) => {
        for (const r of CANON_SECRET_RULES) {
          if (!r.needs.some((literal) => t.includes(literal))) expect(r.find(t)).toEqual([]);
        }
      }),
      { numRuns: 20_000 },
    );
  });

  it('still find the secrets of each kind', () => {
    const found = (t: string) => canonSecretFindings(t).map((f) => f.rule);
    expect(found(`amqp://worker:${password}@mq.internal:5672`)).toEqual(['connection-string']);
    expect(found('-----BEGIN OPENSSH PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7qq0b8s9QmLk')).toEqual(['private-key']);
    expect(found('_password = c2VjcmV0LXRva2VuLXZhbHVl')).toEqual(['npmrc-auth-token']);
    expect(found('kind: Config\nusers:\n- name: a\n  user:\n    token: abcdefghijkl')).toEqual(['kubeconfig-credential']);
    expect(found('client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt')).toEqual(['kubeconfig-credential']);
    expect(found('The service deploys on Tuesday at 10:00 (see service:billing)')).toEqual([]);
    const hidden = (t: string) => canonSecretFindings(t).map((f) => t.slice(f.start, f.end));
    expect(hidden(`postgres://db.internal:5432/prod?user=admin&password=${password}`)).toEqual([password]);
    expect(hidden(`jdbc:postgresql://db:5432/prod;user=admin;password=${password}`)).toEqual([password]);
    expect(hidden(`host=db.internal user=admin password=${password} dbname=prod`)).toEqual([password]);
    expect(hidden(`Server=db;Uid=app;Pwd="${password} x";`)).toEqual([`${password} x`]);
    expect(hidden(`host=db PassWord=${password}`)).toEqual([password]);
    expect(hidden(`Server=db;pwD=${password}`)).toEqual([password]);
    expect(hidden('password=${PGPASSWORD} or PASSWORD=<yours>; the password policy is 12 characters')).toEqual([]);
    // A program's settings: environment variables, properties, YAML, JSON.
    for (const setting of [`DB_PASSWORD=${password}`, `POSTGRES_PASSWORD=${password}`, `export PGPASSWORD=${password}`, `spring.datasource.password=${password}`, `admin_password=${password}`, `mysql_pwd=${password}`]) {
      expect(hidden(setting), setting).toEqual([password]);
    }
    expect(hidden(`db:\n  host: db.internal\n  password: ${password}\n  client_secret: "${password}" # rotated\n`)).toEqual([password, password]);
    expect(hidden(`{"db_password": "${password}", "user": "app"}`)).toEqual([password]);
    // A folder, a flag, prose: not passwords.
    expect(hidden('PWD=/home/user OLDPWD=~/src')).toEqual([]);
    expect(hidden('require_password: true\nPassword: at least 12 characters, one digit')).toEqual([]);
    // A document's label, in Markdown or plain: one token to the end of the line.
    for (const line of [
      `**Admin password:** ${password}`,
      `**Admin password**: ${password}`,
      `- Root password: \`${password}\``,
      `1. Wi-Fi passphrase: ${password}.`,
      `__Staging DB password__: "${password}"`,
      `> Client secret: ${password}`,
      `Password: ${password}`,
    ]) {
      expect(hidden(line), line).toEqual([password]);
    }
    // Settings named for a secret, a token or a key, and credentials in headers and URLs.
    const token = 'f3a9c2e7b1d44e0a9c8b7a6d5e4f3a2b';
    for (const setting of [`JWT_SECRET=${token}`, `jwt.secret=${token}`, `API_KEY=${token}`, `export GITHUB_TOKEN=${token}`, `access_token=${token}`, `aws_secret_access_key = ${token}`, `stripe.api-key=${token}`]) {
      expect(hidden(setting), setting).toEqual([token]);
    }
    expect(hidden(`curl -H "Authorization: Bearer ${token}" https://api.example.com`)).toEqual([token]);
    expect(hidden(`git clone https://${token}@github.com/acme/api.git`)).toEqual([token]);
    expect(hidden(`{"auths": {"registry.example.com": {"auth": "${Buffer.from(`ci:${token}`).toString('base64')}"}}}`)).toEqual([Buffer.from(`ci:${token}`).toString('base64')]);
    // A count, a flag or a word is no token.
    for (const setting of ['max_token=4096', 'USE_API_KEY=true', 'token=none', 'Authorization: Bearer <token>', 'The API key is rotated monthly.']) {
      expect(hidden(setting), setting).toEqual([]);
    }
    // Prose after such a label, a flag, a placeholder: not passwords.
    for (const line of [
      '**Password:** see the team vault',
      '- Admin password: required',
      'Password reset: enabled',
      '**Root password:** `<ask ops>`',
      'Our password policy: 12 characters',
      'The admin password is rotated every month: ask ops',
    ]) {
      expect(hidden(line), line).toEqual([]);
    }
  });

  it('finds the cells of a Markdown table column named for a credential, and no other cell', () => {
    const hidden = (t: string) => canonSecretFindings(t).map((f) => t.slice(f.start, f.end));
    const accounts = [
      '## Accounts',
      '',
      '| Service | User | **Password** | Notes |',
      '|:---|---|---|---|',
      '| staging db | admin | Tr0ub4dor&3x | rotated monthly |',
      '| grafana | ops | `hunter2hunter2` | |',
      '| wiki | - | see the vault | SSO |',
      '| ci | bot | <ask ops> | n/a |',
      '| legacy | root | N/A | |',
      '',
      'After the table | a pipe in prose: Tr0ub4dor&3x stays prose.',
    ].join('\n');
    expect(hidden(accounts)).toEqual(['Tr0ub4dor&3x', 'hunter2hunter2']);
    const token = 'sk9f8a7s6d5f4g3h2j1k0lqwe';
    expect(hidden(`Name | API key | Token expiry\n--- | --- | ---\nstripe | ${token} | 2027-01-01\nlocal | 4096 | never`)).toEqual([token]);
    // Lines ended by \r\n or \r, a quoted table, a header with markup, a parenthesis or a colon.
    expect(hidden('| Service | User | Password |\r\n|---|---|---|\r\n| billing | admin | Zq8crlfPw02 |\r\n')).toEqual(['Zq8crlfPw02']);
    expect(hidden('| Service | Password |\r|---|---|\r| billing | Zq8crPw03 |\r')).toEqual(['Zq8crPw03']);
    expect(hidden('> | Service | Password |\n> |---|---|\n> | billing | Zq8quotePw |')).toEqual(['Zq8quotePw']);
    expect(hidden('| Service | <b>Password</b> | Password (prod) | Password: |\n|---|---|---|---|\n| api | Zq8aaaa1 | Zq8bbbb2 | Zq8cccc3 |')).toEqual(['Zq8aaaa1', 'Zq8bbbb2', 'Zq8cccc3']);
    // YAML's other forms of a value: a block scalar, the next line, an anchor or a tag, a quoted
    // key, a flow mapping, a list under the key; prose and placeholders stay.
    const yaml = [
      'db:',
      '  password: |',
      '    Zq8literal05',
      '  backup_password: >-',
      '    Zq8folded04',
      '  admin_password:',
      '    Zq8nextline',
      '  replica_password: &pw !!str Zq8anchor',
      '  "root_password": Zq8quotedkey',
      '  cache: {user: app, password: Zq8flowmap}',
      '  passwords:',
      '    - Zq8listitem',
      '  policy_password: at least 12 characters',
      '  env_password: ${DB_PASSWORD}',
      '  pool: 5',
    ].join('\n');
    expect(hidden(yaml)).toEqual(['Zq8literal05', 'Zq8folded04', 'Zq8nextline', 'Zq8anchor', 'Zq8quotedkey', 'Zq8flowmap', 'Zq8listitem']);
    // A row named for a credential holds it in the value column.
    expect(hidden('| Setting | Value | Notes |\n|---|---|---|\n| db_password | Zq8kvPw04 | rotated |\n| db_host | db.internal | primary |')).toEqual(['Zq8kvPw04']);
    expect(hidden('| Key | |\n|---|---|\n| API token | f3a9c2e7b1d44e0a9c8b |\n| region | eu-west-1 |')).toEqual(['f3a9c2e7b1d44e0a9c8b']);
    // Where a secret is kept, and a package's version, are no secrets.
    expect(hidden('| Service | Password |\n|---|---|\n| billing | vault:secret/data/billing/db |\n| kafka | env:KAFKA_PASS |\n| ssh | /billing/staging/db |')).toEqual([]);
    expect(hidden('{"devDependencies": {"pbkdf2-password": "1.2.1", "other-password": "^2.0.1"}}')).toEqual([]);
    expect(hidden('db:\n  password: op://infra/billing-db/password\n  token: arn:aws:secretsmanager:eu-west-1:123456789012:secret:db')).toEqual([]);
    expect(hidden('DB_PASSWORD=12345678')).toEqual(['12345678']);
    // A column of keys that are no credentials, a table with no header named for one.
    expect(hidden('| Primary key | Secret name |\n|---|---|\n| id | db-password-prod |')).toEqual([]);
    expect(hidden('| service | owner |\n|---|---|\n| api | password-team-lead |')).toEqual([]);
  });

  it('finds the cells of an HTML table column named for a credential, as a Markdown table\'s', () => {
    const hidden = (t: string) => canonSecretFindings(t).map((f) => t.slice(f.start, f.end));
    const html = [
      '<table>',
      '  <thead><tr><th>Service</th><th>User</th><th><b>Password</b></th></tr></thead>',
      '  <tbody>',
      '    <tr><td>staging db</td><td>admin</td><td>Zq8htmlPw01</td></tr>',
      '    <tr><td>grafana</td><td>ops</td><td> <code>Zq8htmlPw02</code> </td></tr>',
      '    <TR><TD>wiki<TD>-<TD>see the vault',
      '    <tr><td>ci</td><td>bot</td><td>&lt;ask ops&gt;</td></tr>',
      '    <tr><td>legacy</td><td>root</td><td>Zq8<i>split</i></td></tr>',
      '  </tbody>',
      '</table>',
    ].join('\n');
    expect(hidden(html)).toEqual(['Zq8htmlPw01', 'Zq8htmlPw02']);
    expect(hidden('<table><tr><th>Setting</th><th>Value</th></tr><tr><td>db_password</td><td>Zq8htmlKv03</td></tr><tr><td>db_host</td><td>db.internal</td></tr></table>')).toEqual(['Zq8htmlKv03']);
    expect(hidden('<table><tr><th>Service</th><th>Owner</th></tr><tr><td>api</td><td>Zq8notAPassword</td></tr></table>')).toEqual([]);
  });

  it('reads where code takes a credential from as no credential: a changelog\'s code lines keep their words', () => {
    const hidden = (t: string) => canonSecretFindings(t).map((f) => t.slice(f.start, f.end));
    for (const line of [
      'const token = req.headers.authorization;',
      'apiKey = process.env.STRIPE_API_KEY',
      '- `accessToken: session.credentials.accessToken` is passed through',
      'secret_key = settings.SECRET_KEY',
      'password = getPasswordFromKeychain()',
    ]) {
      expect(hidden(line), line).toEqual([]);
    }
    expect(hidden('const token = "f3a9c2e7b1d44e0a9c8b7a6d5e4f3a2b";')).toEqual(['f3a9c2e7b1d44e0a9c8b7a6d5e4f3a2b']);
    expect(hidden('api_key = sk.live.51Hq7dcXYZ2024x')).toEqual(['sk.live.51Hq7dcXYZ2024x']);
  });
});

describe('pushEnvelopeTexts', () => {
  const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', 'text', 'claims', 'a.b'));
  const body = fc.dictionary(key, jsonValues({ strings: fc.string(), keys: key }), { maxKeys: 6 });

  it('lists the texts envelopeStrings lists, in its order', () => {
    fc.assert(
      fc.property(body, fc.option(fc.string({ minLength: 1, maxLength: 40 })), (b, ref) => {
        const parsed = EpisodeInput.safeParse({ idempotency_key: 'k1', subject: 'service:billing', body: JSON.parse(JSON.stringify(b)), ...(ref ? { source_ref: ref } : {}) });
        fc.pre(parsed.success);
        const envelope = toEnvelope(parsed.data, 'w1', { role: 'agent', user: null });
        const out = ['already there'];
        const n = pushEnvelopeTexts(envelope, out);
        const expected = envelopeStrings(envelope).map((s) => s.text);
        expect(n).toBe(expected.length);
        expect(out).toEqual(['already there', ...expected]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("Canon's own credentials, tokens, command lines and sentences", () => {
  const found = (t: string) => canonSecretFindings(t).map((f) => [f.rule, t.slice(f.start, f.end)]);

  it('finds a Canon API key, a webhook secret and a JWT', () => {
    const key = `canon_${'aB3_-x'.repeat(5)}zz`;
    const hook = `whsec_${'Qw9-'.repeat(11)}`;
    const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
    expect(found(`my canon key ${key} for the agent`)).toEqual([['canon-credential', key]]);
    expect(found(`webhook secret ${hook}`)).toEqual([['canon-credential', hook]]);
    expect(found(`Use token ${jwt} to call it`)).toEqual([['jwt', jwt]]);
    // A prefix alone, or a word that merely starts so, is none.
    expect(found('the canon_ prefix marks a key; canon_compile_runs is a table')).toEqual([]);
  });

  it('finds a password typed on a command line, and leaves a variable or a prompt', () => {
    for (const line of ['curl -u admin:Zx9kq2LmP0 https://api.internal', 'mysql -u root -pZx9kq2LmP0 prod', 'mysqldump --password=Zx9kq2LmP0 prod', 'docker login -u admin -p Zx9kq2LmP0 registry.internal', 'sshpass -p Zx9kq2LmP0 ssh deploy@host']) {
      expect(found(line), line).toEqual([['command-credential', 'Zx9kq2LmP0']]);
    }
    for (const line of ['curl -u $USER:$TOKEN https://x', 'mysql -u root -p prod', 'docker login -u admin --password-stdin']) expect(found(line), line).toEqual([]);
  });

  it('finds a password or a PIN told in a sentence, and leaves what a sentence says of passwords', () => {
    expect(found('The admin password is Tr0ub4dor&3x.')).toEqual([['prose-password', 'Tr0ub4dor&3x']]);
    expect(found('the db password is "S3cr3t-P@ss-2024"')).toEqual([['prose-password', 'S3cr3t-P@ss-2024']]);
    expect(found('The vault PIN is 482913.')).toEqual([['prose-password', '482913']]);
    for (const line of ['The password is rotated every month.', 'The password is 12 characters long at least.', 'The password is required.', 'Your password is your-password.']) expect(found(line), line).toEqual([]);
  });

  it("leaves code's comparisons and defaults, and an example's placeholder URL", () => {
    for (const line of ["if (password === '') {", 'password: undefined,', 'DATABASE_URL=postgres://user:password@localhost:5432/app', 'token: z.string().min(1)', 'secret: z.string(),']) {
      expect(found(line), line).toEqual([]);
    }
  });
});

describe("vendors' keys the preset does not know", () => {
  const found = (t: string) => canonSecretFindings(t).map((f) => [f.rule, t.slice(f.start, f.end)]);
  const keys = [
    `sk-ant-api03-${'AbCdEfGhIj0123456789-_'.repeat(4)}AA`,
    `sk-proj-${'AbCdEfGhIjKlMnOp0123'.repeat(3)}`,
    `sk-${'AbCdEfGhIj0123456789'}T3BlbkFJ${'KlMnOpQrSt0123456789'}`,
    'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
    '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',
    'SK0123456789abcdef0123456789abcdef',
    'hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh',
    `dop_v1_${'0123456789abcdef'.repeat(4)}`,
    `shpat_${'0123456789abcdef'.repeat(2)}`,
    `pypi-AgEIcHlwaS5vcmc${'AbCdEfGhIj0123456789'.repeat(3)}`,
    `dapi${'0123456789abcdef'.repeat(2)}`,
    `lin_api_${'AbCdEfGhIj'.repeat(4)}`,
    `dp.pt.${'AbCdEfGhIj'.repeat(4)}abc`,
    `PMAK-${'0123456789ab'.repeat(2)}-${'0123456789abcdef'.repeat(2)}01`,
    `ATATT3${'xFfGF0AbCdEfGhIj'.repeat(8)}`,
    `github_pat_11ABCDEFG0123456789_${'abcdefghij'.repeat(6)}`,
  ];
  it.each(keys)('finds %s whole, in a sentence', (key) => {
    expect(found(`the key is ${key} for now`)).toEqual([['vendor-token', key]]);
  });

  it("finds an Azure key in its connection string, and the value only", () => {
    const key = `${'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1'.repeat(2)}OUzFT50uSRZ6IFsuFq2UVE==`;
    expect(found(`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${key};EndpointSuffix=core.windows.net`)).toEqual([['vendor-token', key]]);
  });

  it('leaves a prefix alone, a word that starts like one, a key cut short and one inside a longer run', () => {
    for (const line of [
      'sk-learn and sk-proj-x are not keys',
      'the AIza prefix marks a Google key',
      'ASK0123456789abcdef0123456789abcdef0 is a hash',
      `SK${'0123456789abcdef'.repeat(2)}0 is longer than a key`,
      'SG.a.b and hf_short',
      'AccountKey=<your key here>',
      'a sha256 of 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    ]) {
      expect(found(line), line).toEqual([]);
    }
  });
});

/** Far enough past an access key id that nothing there is read as its secret. */
const AWS_FAR = 200;

describe('an AWS secret access key beside its access key id', () => {
  const found = (t: string) => canonSecretFindings(t).filter((f) => f.rule === 'aws-secret-key').map((f) => t.slice(f.start, f.end));
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it("finds the secret after or before the id: a credentials CSV's row, a note, a temporary key", () => {
    expect(found(`alice,,AKIAIOSFODNN7EXAMPLE,${secret},https://123456789012.signin.aws.amazon.com/console`)).toEqual([secret]);
    expect(found(`new key for the deploy user: AKIAIOSFODNN7EXAMPLE / ${secret}`)).toEqual([secret]);
    expect(found(`secret ${secret}\nid ASIAIOSFODNN7EXAMPLE (expires at noon)`)).toEqual([secret]);
  });

  it('finds each secret once where the reaches of ids close together overlap, in the order they stand', () => {
    const text = `AKIAIOSFODNN7EXAMPLE ${secret} `.repeat(50);
    const starts = canonSecretFindings(text).filter((f) => f.rule === 'aws-secret-key').map((f) => f.start);
    expect(starts).toEqual(Array.from({ length: 50 }, (_, i) => i * (secret.length + 22) + 21));
  });

  it('leaves forty characters with no id near, a commit hash beside one, a run longer than a secret and one cut by the window', () => {
    expect(found(`the secret is ${secret}`)).toEqual([]);
    expect(found(`AKIAIOSFODNN7EXAMPLE rotated in 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b`)).toEqual([]);
    expect(found(`AKIAIOSFODNN7EXAMPLE ${secret}Z`)).toEqual([]);
    expect(found(`AKIAIOSFODNN7EXAMPLE ${'x'.repeat(AWS_FAR)} ${secret}`)).toEqual([]);
    // A run that starts 40 characters before the window ends, and goes on past it.
    expect(found(`AKIAIOSFODNN7EXAMPLE ${' '.repeat(AWS_FAR - 41)}${'A1b'.repeat(30)}`)).toEqual([]);
    expect(found(`AKIAIOSFODNN7EXAMPLEX ${secret}`)).toEqual([]);
  });
});

describe('a name disguised to slip past the rules', () => {
  it('is read as it shows: a zero-width character inside it, full-width letters; the secret found where it stands', () => {
    const found = (t: string) => canonSecretFindings(t).map((f) => [f.rule, t.slice(f.start, f.end)]);
    expect(found('pass\u200bword: Zx9kq2LmP0abcd')).toEqual([['connection-password', 'Zx9kq2LmP0abcd']]);
    expect(found('\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44: Zx9kq2LmP0abcd')).toEqual([['connection-password', 'Zx9kq2LmP0abcd']]);
    expect(found('DB_PASS\u00adWORD=Zx9kq2LmP0abcd')).toEqual([['connection-password', 'Zx9kq2LmP0abcd']]);
    expect(found('The user prefers dark mode\u200b')).toEqual([]);
    // Percent-escaped, as pasted from a URL's query: found where it stands, escapes and all.
    expect(found('https://x.internal/cb?state=dop%5Fv1%5F' + '0123456789abcdef'.repeat(4) + '&q=a%20b')).toEqual([['vendor-token', 'dop%5Fv1%5F' + '0123456789abcdef'.repeat(4)]]);
    // An escaped space or separator is left as written: a URL's ordinary escapes find nothing.
    expect(found('https://example.com/a%20b%2Fc?x=%41%42&password%3D')).toEqual([]);
  });
});

describe('pushEnvelopeCredentialFlags', () => {
  const flagged = (body: Record<string, unknown>) => {
    const envelope = toEnvelope(EpisodeInput.parse({ idempotency_key: 'k', subject: 's:1', body }), 'w', { role: 'owner', user: null });
    const texts = envelopeStrings(envelope);
    const flags: boolean[] = [];
    pushEnvelopeCredentialFlags(envelope, flags);
    expect(flags).toHaveLength(texts.length);
    return texts.filter((_, i) => flags[i]).map((t) => t.path);
  };

  it('flags the values a member name or a claim predicate names as credentials, in envelopeStrings order', () => {
    expect(
      flagged({
        claims: [
          { predicate: 'credentials', value: { user: 'admin', password: 'Zx9kq2LmP0abcd' } },
          { predicate: 'db password', value: 'Zx9kq2LmP0abcd' },
          { predicate: 'x', value: 'y', qualifiers: { DB_PASS: 'Zx9kq2LmP0' } },
        ],
        notes: { passwords: { prod: 'Zx9kq2LmP0abcd' }, tokens: ['f3a9c2e7b1d44e0a9c8b7a6d5e4f3a2b'], dbPw: 'hunter22' },
      }),
    ).toEqual(['body.claims.0.value.password', 'body.claims.1.value', 'body.claims.2.qualifiers.DB_PASS', 'body.notes.passwords.prod', 'body.notes.tokens.0', 'body.notes.dbPw']);
  });

  it('leaves prose, placeholders, flags, references, short tokens and names that only end like one', () => {
    expect(
      flagged({
        claims: [
          { predicate: 'password policy', value: '12 characters' },
          { predicate: 'db password', value: '${DB_PASSWORD}' },
          { predicate: 'admin password', value: 'see the vault' },
          { predicate: 'password', value: 'required' },
        ],
        notes: { bypass: 'cache-layer-01', api_key: 'short', passwordless: 'enabled-2024', primary_key: 'id_2024_abc', token: 'vault:secret/data/ci', secret: '[redacted:github:bcdfghjklnrt]' },
      }),
    ).toEqual([]);
  });
});

describe('encodedRuns', () => {
  const printable = fc.string({ minLength: 18, maxLength: 200, unit: fc.constantFrom(...' abcxyzABCXYZ0189:=_-/.\n\t"{}'.split('')) });

  it('finds base64 of any text of 18 bytes or more, in either alphabet, where it stands, and gives the text back', () => {
    fc.assert(
      fc.property(printable, fc.constantFrom<'base64' | 'base64url'>('base64', 'base64url'), (text, alphabet) => {
        const encoded = Buffer.from(text, 'utf8').toString(alphabet);
        const around = `see ${encoded} here`;
        expect(encodedRuns(around)).toEqual([{ start: 4, end: 4 + encoded.length, decoded: text }]);
      }),
    );
  });

  it('finds nothing in bytes that are not text: a control character anywhere, or invalid UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 18, maxLength: 120 }), fc.nat(), fc.constantFrom(0x00, 0x01, 0x1b, 0x7f, 0xff), (bytes, at, bad) => {
        const withBad = Uint8Array.from(bytes);
        withBad[at % withBad.length] = bad;
        expect(encodedRuns(`x ${Buffer.from(withBad).toString('base64')} y`)).toEqual([]);
      }),
    );
  });

  it('reads no run shorter than 24 characters, and decodes a path\'s last segment', () => {
    expect(encodedRuns(`a ${Buffer.from('seventeen bytes!!').toString('base64')}`)).toEqual([]);
    const token = Buffer.from('a text of some twenty bytes').toString('base64url');
    expect(encodedRuns(`/v1/handoff/${token}`)).toEqual([{ start: 12, end: 12 + token.length, decoded: 'a text of some twenty bytes' }]);
  });
});
