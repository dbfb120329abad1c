import { z } from 'zod';
import { isScalar, isSeq, parseAllDocuments, visit, type Scalar } from 'yaml';
import { sha256 } from './hash.js';
import type { Envelope } from './episode.js';

/**
 * The pure half of "secrets never enter the log" (design §3): the replacement format, Canon's
 * own detection rules (what secretlint's recommended preset does not cover), and the walk over
 * every string of an envelope. The runtime adds secretlint, which is asynchronous.
 */

/** What a workspace does with an item holding a secret: replace it (default), or reject the item. */
export const SecretsMode = z.enum(['redact', 'refuse']);
export type SecretsMode = z.infer<typeof SecretsMode>;
export const DEFAULT_SECRETS_MODE: SecretsMode = 'redact';

/** One detected secret in one string: the rule that found it and its UTF-16 range. */
export interface SecretFinding {
  rule: string;
  start: number;
  end: number;
}

/** Where a secret was replaced (or found): the rule and the field, as a dotted path. */
export interface Redaction {
  rule: string;
  path: string;
}

/** ModHex (as YubiKeys print): the hex digits 0–f written as letters only. */
const MODHEX = 'cbdefghijklnrtuv';

/**
 * The replacement: `[redacted:<rule>:<short hash>]`, the short hash being the first 12 hex
 * digits of a SHA-256 of the workspace and the secret, written in ModHex letters (`0`–`f` →
 * `cbdefghijklnrtuv`) so that no extractor reads its digits as a number or a unit. The same
 * secret gives the same text, so a re-sync stays a duplicate; one workspace's markers cannot
 * be matched against another's. It is not reversible: 48 bits of a hash say nothing about a
 * high-entropy token or key. A short, guessable password could be confirmed by hashing
 * candidates — as it could by trying it — which is one more reason it is only a prefix.
 */
export function redactionMarker(workspaceId: string, rule: string, secret: string): string {
  const hex = sha256(`canon/secret/1\u0000${workspaceId}\u0000${secret}`).slice(0, 12);
  return `[redacted:${rule}:${[...hex].map((d) => MODHEX[parseInt(d, 16)]).join('')}]`;
}

/** A marker in a text: never a secret again, whatever a rule's pattern says about it. */
export const REDACTION_MARKER = /\[redacted:[a-z0-9-]+:[cbdefghijklnrtuv]{12}\]/g;

/** Findings that touch a marker already in the text are dropped: a redacted text stays as it is. */
export function outsideMarkers(text: string, findings: readonly SecretFinding[]): SecretFinding[] {
  if (!text.includes('[redacted:')) return [...findings];
  const markers = [...text.matchAll(REDACTION_MARKER)].map((m) => [m.index, m.index + m[0].length] as const);
  return findings.filter((f) => !markers.some(([start, end]) => f.start < end && f.end > start));
}

/** A placeholder rather than a value: `${NPM_TOKEN}`, `$PASSWORD`, `<password>`, `****`, `xxxx`. */
function isPlaceholder(value: string): boolean {
  return (
    /^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|<[^>]*>|\*+|x+|X+|\.\.\.|…)$/.test(value) ||
    // The word itself, as an example's `postgres://user:password@localhost` writes it, or code's
    // `password: undefined`.
    /^(?:password|passwd|pass|pwd|secret|token|changeme|change[-_]me|example|your[-_]?(?:password|token|secret)|my[-_]?password|undefined|nil)[,;]?$/i.test(value) ||
    pointsElsewhere(value)
  );
}

/**
 * A value that says where a secret is kept, or a package's version — no secret: a reference
 * (`vault:secret/data/db`, `env:DB_PASS`, `op://vault/item`, `arn:aws:secretsmanager:…`), an absolute
 * path (`/billing/staging/db`), a version (`1.2.1`, `^29.0.0`: `"pbkdf2-password": "1.2.1"` is a
 * package's dependency). A value its writer put in a vault is the pointer a team needs to find it.
 */
function pointsElsewhere(value: string): boolean {
  return (
    /^(?:vault|env|secret|secrets|ssm|arn|kv|op|keyvault|sm|gcpsm|awssm|k8s|kubernetes|file|doppler|infisical):/i.test(value) ||
    /^\/[\w./-]+$/.test(value) ||
    // Where code reads it from: `process.env.API_KEY`, `req.headers.authorization`, `getToken()` —
    // a code line in a changelog or a README, not a credential.
    /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+(?:\([^()]*\))?[,;]?$/.test(value) ||
    // A call, whole or cut at its parenthesis where a setting's bare value ends.
    /^[A-Za-z_$][\w$.]*\((?:[^()]*\)(?:\.[A-Za-z_$][\w$]*\([^()]*\))*[,;]?)?$/.test(value) ||
    /^(?:[~^]|[<>]=?|=)?v?\d+(?:\.(?:\d+|x|\*)){1,3}(?:-[\w.]+)?$/.test(value)
  );
}

/**
 * How a setting holding a credential is named, at the end of its name, in any case: a secret, a
 * token, a pass, or a key of a kind (`api_key`, `apiKey`, `SECRET_KEY`, `master_key`,
 * `privateKey`, `DB_PASS`); `key` alone, or a `primary_key`, is no credential's name.
 */
const KEY_KIND = '(?:api|access|private|secret|master|signing|encryption|license|ssh|deploy|auth|client|session)';
const CREDENTIAL_NAME = `(?:secret|token|pass|apikey|${KEY_KIND}[_.-]?key)`;

/** The forms a credential's setting is written in, compiled once (`token-setting` reads them). */
/** A word every named form of `token-setting` holds (`"identitytoken"` too). */
const CREDENTIAL_WORD = /secret|token|key|pass/i;
/** A key named for a credential and its colon, as `yaml-credential` needs one to find anything. */
const CREDENTIAL_KEY_COLON = /(?:secret|token|key|pass|pwd|credential)[\w.-]*["']?[ \t]*:/i;
/** The schemes of an `Authorization` credential, as that rule spells them. */
const AUTH_SCHEME = /Bearer|bearer|BEARER|Basic|basic|BASIC/;
const CREDENTIAL_SETTING = {
  assigned: new RegExp(`(?:^|[\\s;,?&"'{(])((?:[A-Za-z0-9][A-Za-z0-9_.-]*)?${CREDENTIAL_NAME})[ \\t]*=[ \\t]*(?:"([^"\\n]+)"|'([^'\\n]+)'|([^\\s;&#"',)}]+))`, 'dgi'),
  yaml: new RegExp(`^[ \\t]*(?:- )?((?:[A-Za-z0-9][A-Za-z0-9_.-]*)?${CREDENTIAL_NAME})[ \\t]*:(?:[ \\t]+|(?=["']))(?:"([^"\\n]+)"|'([^'\\n]+)'|([^\\s#"'][^\\s#]*))[ \\t]*(?:#.*)?$`, 'dgim'),
  json: new RegExp(`"((?:[A-Za-z0-9][A-Za-z0-9_.-]*)?${CREDENTIAL_NAME})"[ \\t]*:[ \\t]*"([^"\\n]+)"`, 'dgi'),
  label: new RegExp(`^[ \\t]*(?:[-*+>][ \\t]+|\\d+[.)][ \\t]+)?(?:\\*\\*|__)?((?:[A-Za-z][\\w.-]*[ \\t]+){0,3}(?:[\\w.-]*${CREDENTIAL_NAME}|${KEY_KIND}[ \\t]+key))(?:\\*\\*|__)?[ \\t]*:(?:\\*\\*|__)?(?:[ \\t]+|(?=[\`"']))(?:\\*\\*|__)?[ \\t]*(?:\`([^\`\\n]+)\`|"([^"\\n]+)"|'([^'\\n]+)'|([^\\s\`"'*_][^\\s]*?))[.,;]?[ \\t]*$`, 'dgim'),
  env: new RegExp(`^[ \\t]*ENV[ \\t]+((?:[A-Za-z0-9][A-Za-z0-9_.-]*)?${CREDENTIAL_NAME})[ \\t]+(?:"([^"\\n]+)"|'([^'\\n]+)'|([^\\s"'=][^\\s]*))[ \\t]*$`, 'dgim'),
};

/**
 * The vendor keys of the `vendor-token` rule, one alternative each. A key in a connection string
 * (`AccountKey=`, `SharedAccessKey=`) is the value only: group 1 is the name before it.
 */
const VENDOR_KEYS = [
  '(?<![A-Za-z0-9_-])sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{32,}',
  '(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,}',
  '(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}',
  '(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}',
  '(?<![A-Za-z0-9_.-])SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}',
  '(?<![A-Za-z0-9_-])SK[0-9a-f]{32}',
  '(?<![A-Za-z0-9_-])hf_[A-Za-z]{34}',
  '(?<![A-Za-z0-9_-])do[opr]_v1_[a-f0-9]{64}',
  '(?<![A-Za-z0-9_-])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}',
  '(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}',
  '(?<![A-Za-z0-9_-])dapi[a-f0-9]{32}(?:-[0-9])?',
  '(?<![A-Za-z0-9_-])lin_api_[A-Za-z0-9]{40}',
  '(?<![A-Za-z0-9_.-])dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,44}',
  '(?<![A-Za-z0-9_-])PMAK-[a-f0-9]{24}-[a-f0-9]{34}',
  '(?<![A-Za-z0-9_-])ATATT3[A-Za-z0-9_=-]{100,}',
  '(?<![A-Za-z0-9_-])github_pat_[A-Za-z0-9_]{70,}',
  '((?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=)[A-Za-z0-9+/]{40,}={0,2}',
];
// A key runs to the end of its alphabet: one cut inside a longer run is not a key.
const VENDOR_TOKEN = new RegExp(`(?:${VENDOR_KEYS.join('|')})(?![A-Za-z0-9_-])`, 'g');

/** An AWS access key id: long-term (`AKIA`) or temporary (`ASIA`). */
const AWS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;
/** Forty characters of an AWS secret's alphabet, not inside a longer run. */
const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const AWS_SECRET_CHAR = /[A-Za-z0-9/+=]/;
/** How far from its access key id a secret is read as the key's (about a CSV row or a short note). */
const AWS_SECRET_REACH = 200;

/** A value long and varied enough to be a credential, not a count, a flag or a word. */
function credentialShaped(value: string): boolean {
  return (value.length >= 12 && /\d/.test(value)) || value.length >= 20;
}

/**
 * Canon's rules, each a pure function of one string. They fill what secretlint's recommended
 * preset misses: a connection string of any scheme with a password (in its user part or as a
 * setting), a private key block of any
 * size (the preset needs 100 characters of body), `.npmrc` auth settings whose token is not an
 * `npm_` one, and credentials in a kubeconfig.
 */
export const CANON_SECRET_RULES: ReadonlyArray<{
  rule: string;
  /**
   * Literals of which a text must hold at least one for `find` to find anything: `find` asks for
   * them first itself, and `canonSecretFindings` calls a rule only for a text that holds one.
   */
  needs: readonly string[];
  find: (text: string) => SecretFinding[];
}> = Object.freeze([
  {
    // scheme://user:password@host — the whole credential through the host, as secretlint's own
    // database rule does: the host of a leaked credential is part of what leaked.
    rule: 'connection-string',
    needs: ['://'],
    find(text: string): SecretFinding[] {
      // Each rule first asks for a literal its pattern cannot match without: most strings have
      // none, and a substring search costs a fraction of a regular expression's scan.
      if (!text.includes('://')) return [];
      const out: SecretFinding[] = [];
      for (const m of text.matchAll(/\b[a-z][a-z0-9+.-]{1,30}:\/\/([^\s:/?#@'"<>]*):([^\s/?#@'"<>]+)@[^\s/?#'"<>@]+/gi)) {
        if (isPlaceholder(m[2]!)) continue;
        out.push({ rule: 'connection-string', start: m.index, end: m.index + m[0].length });
      }
      return out;
    },
  },
  {
    // A password given as a setting: of a connection — a URL's query (`postgres://db/prod?user=a&
    // password=…`, `jdbc:postgresql://…;password=…`), a libpq or ODBC string (`host=db user=a
    // password=…`, `Server=db;Uid=a;Pwd=…;`) — or of a program: an environment variable or a
    // property whose name ends in one (`DB_PASSWORD=…`, `export PGPASSWORD=…`,
    // `spring.datasource.password=…`), a YAML or properties line (`password: …`,
    // `client_secret: …`: one word to the end of the line), a JSON member (`"db_password": "…"`).
    // The value only, quoted or not. A shell's `PWD=/home/…` is a folder, not a password.
    rule: 'connection-password',
    // The setting's name is matched in any case; its `=` or `:` never varies: the literals it needs.
    needs: ['=', ':'],
    find(text: string): SecretFinding[] {
      if (!text.includes('=') && !text.includes(':')) return [];
      // Every form names the setting: one scan for the name before the patterns' scans.
      if (!/pass|pwd|secret/i.test(text)) return [];
      const out: SecretFinding[] = [];
      const take = (m: RegExpMatchArray, groups: readonly number[]) => {
        const found = quotedValue(m, groups);
        if (!found) return;
        const { value, span } = found;
        if (/pwd$/i.test(m[1]!) && /^(?:[/~.]|[A-Za-z]:\\)/.test(value)) return;
        // Code's comparison (`password === ''`, `password == null`) is no setting.
        if (value.startsWith('=')) return;
        // A block scalar's header (`|`, `>-`), an anchor or a tag is no value: `yaml-credential`
        // reads what follows it.
        if (/^(?:[|>][-+1-9]*|[&!]\S*)$/.test(value)) return;
        // A YAML line is a document label too: one finding for it.
        if (out.some((f) => f.start === span[0] && f.end === span[1])) return;
        out.push({ rule: 'connection-password', start: span[0], end: span[1] });
      };
      if (text.includes('=')) {
        for (const m of text.matchAll(/(?:^|[\s;,?&"'{(])((?:[A-Za-z0-9][A-Za-z0-9_.-]*)?(?:password|passwd|pwd))[ \t]*=[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|(\$\{[^}\s]*\}|[^\s;&#"',)}]+))/dgi)) take(m, [2, 3, 4]);
      }
      if (text.includes(':')) {
        for (const m of text.matchAll(/^[ \t]*(?:- )?([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret))[ \t]*:(?:[ \t]+|(?=["']))(?:"([^"\n]+)"|'([^'\n]+)'|([^\s#"'][^\s#]*))[ \t]*(?:#.*)?$/dgim)) {
          if (/^(?:true|false|null|~|yes|no|none)$/i.test(m[4] ?? '')) continue;
          take(m, [2, 3, 4]);
        }
        for (const m of text.matchAll(/"([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret))"[ \t]*:[ \t]*"([^"\n]+)"/dgi)) take(m, [2]);
        // A document's label, Markdown or plain (`**Admin password:** …`, `- Wi-Fi passphrase:
        // \`…\``): a few words ending in one of the names, and one token to the end of the line,
        // so that prose after such a label ("see the team vault") stays.
        for (const m of text.matchAll(
          /^[ \t]*(?:[-*+>][ \t]+|\d+[.)][ \t]+)?(?:\*\*|__)?((?:[A-Za-z][\w.-]*[ \t]+){0,3}[\w.-]*(?:password|passwd|passphrase|secret))(?:\*\*|__)?[ \t]*:(?:\*\*|__)?(?:[ \t]+|(?=[`"']))(?:\*\*|__)?[ \t]*(?:`([^`\n]+)`|"([^"\n]+)"|'([^'\n]+)'|([^\s`"'*_][^\s]*?))[.,;]?[ \t]*$/dgim,
        )) {
          if (/^(?:true|false|null|~|yes|no|none|required|optional|enabled|disabled|n\/a)$/i.test(m[5] ?? '')) continue;
          take(m, [2, 3, 4, 5]);
        }
      }
      return out;
    },
  },
  {
    // A credential named for what it is: a setting whose name ends in `secret`, `token` or a kind
    // of key (`JWT_SECRET=…`, `jwt.secret=…`, `API_KEY=…`, `export GITHUB_TOKEN=…`,
    // `aws_secret_access_key = …`), an `Authorization: Bearer …` or `Basic …` credential, a token
    // that is a URL's whole user part (`https://<token>@github.com/…`), a registry login's
    // `"auth": "…"`. The value only, and only one shaped like a credential — 12 characters or
    // more with a digit, or 20 or more — so `max_token=4096` or `USE_API_KEY=true` stay.
    rule: 'token-setting',
    needs: ['=', ':', 'ENV', 'Bearer', 'bearer', 'BEARER', 'Basic', 'basic', 'BASIC', '://', '"auth', '"identitytoken"'],
    find(text: string): SecretFinding[] {
      const named = CREDENTIAL_WORD.test(text);
      // Nearly every string holds a `:` or `=` (a subject, a lineage, a time): one that names no
      // credential and holds none of the other forms' literals is done before anything is built.
      if (!named && !AUTH_SCHEME.test(text) && !text.includes('://') && !text.includes('"auth')) return [];
      const out: SecretFinding[] = [];
      const take = (m: RegExpMatchArray, groups: readonly number[]) => {
        const found = quotedValue(m, groups);
        if (!found || !credentialShaped(found.value)) return;
        if (out.some((f) => f.start === found.span[0] && f.end === found.span[1])) return;
        out.push({ rule: 'token-setting', start: found.span[0], end: found.span[1] });
      };
      if (named && text.includes('=')) {
        for (const m of text.matchAll(CREDENTIAL_SETTING.assigned)) take(m, [2, 3, 4]);
      }
      if (named && text.includes(':')) {
        // A YAML or properties line (`api_key: …`, `apiKey: …`, `token: …`), a JSON member
        // (`"accessToken": "…"`), a document's label (`- API token: …`, `**Deploy key:** …`).
        for (const m of text.matchAll(CREDENTIAL_SETTING.yaml)) take(m, [2, 3, 4]);
        for (const m of text.matchAll(CREDENTIAL_SETTING.json)) take(m, [2]);
        for (const m of text.matchAll(
          CREDENTIAL_SETTING.label,
        )) take(m, [2, 3, 4, 5]);
      }
      // A Dockerfile's `ENV API_KEY value`.
      if (named && text.includes('ENV')) {
        for (const m of text.matchAll(CREDENTIAL_SETTING.env)) take(m, [2, 3, 4]);
      }
      if (AUTH_SCHEME.test(text)) for (const m of text.matchAll(/\b(?:Bearer|bearer|BEARER|Basic|basic|BASIC)[ \t]+([A-Za-z0-9._~+/-]+=*)/dg)) take(m, [1]);
      if (text.includes('://')) for (const m of text.matchAll(/\bhttps?:\/\/([A-Za-z0-9_-]{20,})@[A-Za-z0-9.-]+/dgi)) take(m, [1]);
      if (text.includes('"auth') || text.includes('"identitytoken"')) {
        for (const m of text.matchAll(/"(?:auth|identitytoken)"[ \t]*:[ \t]*"([^"\s]+)"/dg)) take(m, [1]);
      }
      return out;
    },
  },
  {
    // BEGIN … PRIVATE KEY through its END; a block cut short runs to the end of the string.
    rule: 'private-key',
    needs: ['-----BEGIN'],
    find(text: string): SecretFinding[] {
      if (!text.includes('-----BEGIN')) return [];
      const out: SecretFinding[] = [];
      for (const m of text.matchAll(/-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g)) {
        out.push({ rule: 'private-key', start: m.index, end: m.index + m[0].length });
      }
      return out;
    },
  },
  {
    // `.npmrc`: `//registry/:_authToken=…`, `_auth=…` (base64 user:password), `_password=…`.
    rule: 'npmrc-auth-token',
    needs: ['_auth', '_password'],
    find(text: string): SecretFinding[] {
      if (!text.includes('_auth') && !text.includes('_password')) return [];
      return valueGroups(text, /(?:^|[\s;])(?:\/\/[^\s=]*:)?_(?:authToken|auth|password)[ \t]*=[ \t]*"?([^\s"]+)/dgm, 'npmrc-auth-token');
    },
  },
  {
    // `client-key-data:` exists only in kubeconfigs; `token:`, `password:` and the auth-provider
    // secrets count only in text shaped like one (`kind: Config`, or `users:` with `clusters:`).
    rule: 'kubeconfig-credential',
    // A credential is looked for only under `client-key-data`, or in text holding `kind:` or `users:`.
    needs: ['client-key-data', 'kind:', 'users:'],
    find(text: string): SecretFinding[] {
      if (!text.includes(':')) return [];
      const out = text.includes('client-key-data') ? valueGroups(text, /\bclient-key-data:[ \t]*["']?([A-Za-z0-9+/=]{8,})/dg, 'kubeconfig-credential') : [];
      const kubeconfig =
        (text.includes('kind:') || text.includes('users:')) &&
        (/^\s*kind:\s*["']?Config\b/m.test(text) || (/^\s*users:/m.test(text) && /^\s*clusters:/m.test(text)));
      if (kubeconfig) {
        out.push(
          ...valueGroups(
            text,
            /^[ \t-]*(?:token|password|client-secret|id-token|refresh-token|access-token)[ \t]*:[ \t]*["']?([^\s"'#]+)/dgm,
            'kubeconfig-credential',
          ),
        );
      }
      return out;
    },
  },
  {
    // A YAML value under a key named for a credential, in every form YAML has for it — a block
    // scalar (`password: |`), the value on the next line, an anchor or a tag before it, a quoted
    // key, a flow mapping, a list under the key — read from the parsed text, so each is found where
    // the parser says it is. The line rules above read one line: `password: |` gave them the `|`.
    // A text that does not parse as YAML is no concern of this rule.
    rule: 'yaml-credential',
    needs: [':'],
    find(text: string): SecretFinding[] {
      // Parsed only when a key named for a credential is followed by its colon somewhere: prose
      // that mentions a key or a token is not parsed as YAML on every ingest.
      if ((!text.includes('\n') && !text.includes('{')) || !CREDENTIAL_KEY_COLON.test(text)) return [];
      return yamlCredentials(text);
    },
  },
  {
    // A Markdown table with a column named for a credential (`| service | user | password |`,
    // `| Name | API key |`): each row's cell in that column. A password's or secret's cell when it
    // is one token (prose such as "see the vault" stays), a token's or key's only when shaped like
    // a credential, as `token-setting` reads a setting's value.
    rule: 'table-credential',
    needs: ['|'],
    find(text: string): SecretFinding[] {
      if (!CREDENTIAL_WORD.test(text) && !/pwd|credential/i.test(text)) return [];
      const out: SecretFinding[] = [];
      let columns: TableColumns | null = null;
      let header: Array<{ text: string }> | null = null;
      // Lines ended by \n, \r\n or \r alike; a table quoted (`> | … |`) is read past its markers.
      for (const m of text.matchAll(/([^\r\n]*)(?:\r\n|\r|\n|$)/g)) {
        const quote = /^(?:[ \t]*>)*/.exec(m[1]!)![0];
        const line = m[1]!.slice(quote.length);
        if (!line.includes('|')) {
          columns = null;
          header = null;
          if (m[0] === '') break;
          continue;
        }
        if (TABLE_DELIMITER.test(line)) {
          columns = header ? tableColumns(header) : null;
          header = null;
          continue;
        }
        const cells = tableCells(line, m.index + quote.length);
        if (!columns) {
          header = cells;
          continue;
        }
        tableRowCredentials(columns, cells, 'table-credential', out);
      }
      return out;
    },
  },
  {
    // The same in an HTML table (`<tr><th>User</th><th>Password</th></tr>…`), as Markdown files and
    // wiki exports write them: the first row is the header, each later row's cells are read as a
    // Markdown table's are.
    rule: 'html-table-credential',
    needs: ['<t', '<T'],
    find(text: string): SecretFinding[] {
      if (!CREDENTIAL_WORD.test(text) && !/pwd|credential/i.test(text)) return [];
      const out: SecretFinding[] = [];
      for (const table of text.matchAll(/<table\b[^>]*>([\s\S]*?)<\/table\s*>/gi)) {
        let columns: TableColumns | null = null;
        const inner = table.index + table[0].indexOf('>') + 1;
        for (const row of table[1]!.matchAll(/<tr\b[^>]*>([\s\S]*?)(?=<tr\b|$)/gi)) {
          const cells = htmlCells(row[1]!, inner + row.index + row[0].indexOf('>') + 1);
          if (!columns) columns = tableColumns(cells);
          else tableRowCredentials(columns, cells, 'html-table-credential', out);
        }
      }
      return out;
    },
  },
  {
    // Canon's own credentials: an API key (`canon_` and 32 characters) and a webhook's signing
    // secret (`whsec_` and 43) — an agent that pastes its key into a note hands it to every reader.
    rule: 'canon-credential',
    needs: ['canon_', 'whsec_'],
    find(text: string): SecretFinding[] {
      const out: SecretFinding[] = [];
      for (const m of text.matchAll(/(?<![A-Za-z0-9_-])(?:canon_[A-Za-z0-9_-]{32,64}|whsec_[A-Za-z0-9_-]{32,64})(?![A-Za-z0-9_-])/g)) {
        out.push({ rule: 'canon-credential', start: m.index, end: m.index + m[0].length });
      }
      return out;
    },
  },
  {
    // Vendors' keys that secretlint's preset does not know, each by the prefix its vendor gives it
    // (the shapes secret scanners such as gitleaks list): Anthropic, OpenAI, Google, SendGrid,
    // Twilio, Hugging Face, DigitalOcean, Shopify, PyPI, Databricks, Linear, Doppler, Postman,
    // Atlassian, GitHub's fine-grained tokens of any length, and an Azure storage or service-bus
    // key in its connection string. A prefix alone,
    // or a word that merely starts like one, is none: each needs its length and its alphabet.
    rule: 'vendor-token',
    needs: ['sk-', 'AIza', 'SG.', 'SK', 'hf_', '_v1_', 'shp', 'pypi-', 'dapi', 'lin_api_', 'dp.', 'PMAK-', 'ATATT', 'github_pat_', 'AccessKey=', 'AccountKey='],
    find(text: string): SecretFinding[] {
      const out: SecretFinding[] = [];
      for (const m of text.matchAll(VENDOR_TOKEN)) {
        const start = m.index + (m[1]?.length ?? 0);
        out.push({ rule: 'vendor-token', start, end: m.index + m[0].length });
      }
      return out;
    },
  },
  {
    // An AWS secret access key pasted bare beside its access key id, with no setting's name before
    // it: an IAM credentials CSV's row (`alice,,AKIA…,wJalr…,https://…`), or the two pasted into a
    // note. Forty characters of base64 alone are no rule's business (a hash, an id); within 200
    // characters of an access key id, with both cases of letter and a digit or `/` or `+` among
    // them, they are the key's secret. The id itself is secretlint's AWS rule's.
    rule: 'aws-secret-key',
    needs: ['AKIA', 'ASIA'],
    find(text: string): SecretFinding[] {
      const out: SecretFinding[] = [];
      // Windows of ids close together overlap: each secret once, by where it starts.
      const seen = new Set<number>();
      for (const id of text.matchAll(AWS_KEY_ID)) {
        const from = Math.max(0, id.index - AWS_SECRET_REACH);
        const to = Math.min(text.length, id.index + id[0].length + AWS_SECRET_REACH);
        for (const m of text.slice(from, to).matchAll(AWS_SECRET)) {
          const start = from + m.index;
          const end = start + m[0].length;
          // A run the window cut through is not a token of 40 characters.
          if ((start === from && from > 0 && AWS_SECRET_CHAR.test(text[from - 1]!)) || (end === to && AWS_SECRET_CHAR.test(text[to] ?? ''))) continue;
          if (seen.has(start) || !/[a-z]/.test(m[0]) || !/[A-Z]/.test(m[0]) || !/[0-9/+]/.test(m[0])) continue;
          seen.add(start);
          out.push({ rule: 'aws-secret-key', start, end });
        }
      }
      return out.sort((a, b) => a.start - b.start);
    },
  },
  {
    // A JSON Web Token: a header and a payload that open `{"` (`eyJ`), and a signature.
    rule: 'jwt',
    needs: ['eyJ'],
    find(text: string): SecretFinding[] {
      const out: SecretFinding[] = [];
      for (const m of text.matchAll(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])/g)) {
        out.push({ rule: 'jwt', start: m.index, end: m.index + m[0].length });
      }
      return out;
    },
  },
  {
    // A password on a command line: `curl -u user:…`, `mysql -p…`, `docker login -p …`,
    // `sshpass -p …` — a runbook's commands, pasted as they were typed.
    rule: 'command-credential',
    needs: ['-u', '--user', '-p', '--password'],
    find(text: string): SecretFinding[] {
      const out: SecretFinding[] = [];
      const take = (m: RegExpMatchArray, group: number) => {
        const span = m.indices?.[group];
        const value = m[group];
        if (!span || value === undefined || isPlaceholder(value) || value.length < 4) return;
        out.push({ rule: 'command-credential', start: span[0], end: span[1] });
      };
      for (const m of text.matchAll(/\bcurl\b[^\n]*?\s(?:-u|--user)[ \t=]+["']?[^\s:"']+:([^\s"']+)/dg)) take(m, 1);
      for (const m of text.matchAll(/\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s-p([^\s"'-][^\s"']*)/dg)) take(m, 1);
      for (const m of text.matchAll(/\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s--password=["']?([^\s"']+)/dg)) take(m, 1);
      for (const m of text.matchAll(/\b(?:docker|podman|nerdctl|helm|oras|skopeo)\s+(?:registry\s+)?login\b[^\n]*?\s(?:-p|--password)[ \t=]+["']?([^\s"']+)/dg)) take(m, 1);
      for (const m of text.matchAll(/\bsshpass\s+-p[ \t]*["']?([^\s"']+)/dg)) take(m, 1);
      return out;
    },
  },
  {
    // A password told in a sentence: "the admin password is Tr0ub4dor&3x", "… is \"S3cr3t\"" —
    // quoted, or a token of letters with a digit or a sign, eight characters or more; "the password
    // is rotated monthly" stays prose. A PIN told the same way: "the vault PIN is 482913".
    rule: 'prose-password',
    // The names as a sentence writes them (first letter either case, or all capitals), each one's
    // literal here: a rule is asked only for a text holding one of its literals.
    needs: ['assword', 'ASSWORD', 'assphrase', 'ASSPHRASE', 'asswd', 'ASSWD', 'PIN'],
    find(text: string): SecretFinding[] {
      const out: SecretFinding[] = [];
      for (const m of text.matchAll(/\b(?:[Pp]assword|PASSWORD|[Pp]assphrase|PASSPHRASE|[Pp]asswd|PASSWD)\s+(?:is|was|remains|is still|=)\s+(?:"([^"\n]{4,})"|'([^'\n]{4,})'|`([^`\n]{4,})`|([^\s"'`]{8,}?))(?=[.,;:!?)]?(?:\s|$))/dg)) {
        const group = [1, 2, 3, 4].find((g) => m[g] !== undefined)!;
        const value = m[group]!;
        const span = m.indices![group]!;
        if (isPlaceholder(value) || NOT_A_SECRET.test(value)) continue;
        if (group === 4 && !(/[A-Za-z]/.test(value) && /[\d\W_]/.test(value))) continue;
        out.push({ rule: 'prose-password', start: span[0], end: span[1] });
      }
      for (const m of text.matchAll(/\bPIN(?:\s+code)?\s+(?:is|was|:|=)\s*(\d{4,8})\b/dg)) {
        const span = m.indices![1]!;
        out.push({ rule: 'prose-password', start: span[0], end: span[1] });
      }
      return out;
    },
  },
]);

type TableCell = { text: string; start: number; end: number };

/**
 * One table row's credentials: the cells of the columns named for one, and, in a row named for a
 * credential (`| db_password | … |`), the cell of the table's value column. A password's or
 * secret's cell when it is one token (prose such as "see the vault" stays), a token's or key's
 * only when shaped like a credential, as `token-setting` reads a setting's value.
 */
function tableRowCredentials(columns: TableColumns, cells: readonly TableCell[], rule: string, out: SecretFinding[]): void {
  const take = (cell: TableCell | undefined, kind: CredentialKind) => {
    if (cell && cell.start >= 0 && credentialValue(cell.text, kind)) out.push({ rule, start: cell.start, end: cell.end });
  };
  for (const [i, kind] of columns.named) take(cells[i], kind);
  const label = cells[0] ? credentialKind(cells[0].text) : null;
  if (label && columns.value !== null && !columns.named.has(columns.value)) take(cells[columns.value], label);
}

/**
 * An HTML row's cells (`<td>`, `<th>`; a closing tag may be left out, as HTML allows), each its text
 * with where it stands: markup around a value (`<code>…</code>`) is not part of it, and a cell whose
 * text is broken by markup is read as its text without the tags, with no place (so never redacted).
 */
function htmlCells(row: string, offset: number): TableCell[] {
  const cells: TableCell[] = [];
  for (const m of row.matchAll(/<t[hd]\b[^>]*>([\s\S]*?)(?=<\/t[hd]\s*>|<t[hd]\b|<\/tr\s*>|$)/gi)) {
    let start = offset + m.index + m[0].length - m[1]!.length;
    let content = m[1]!;
    // Whitespace, then any tags that open and close around the value.
    for (;;) {
      const lead = /^(?:\s+|<[a-z][^>]*>)/i.exec(content);
      if (!lead) break;
      start += lead[0].length;
      content = content.slice(lead[0].length);
    }
    content = content.replace(/(?:\s+|<\/[a-z][^>]*>)+$/i, '');
    const text = content.includes('<') ? content.replace(/<[^>]*>/g, '') : content;
    cells.push(content.includes('<') ? { text, start: -1, end: -1 } : { text: decodeEntities(text), start, end: start + content.length });
  }
  return cells;
}

/** The entities a cell's text is written with; a value holding one is read as its writer meant. */
function decodeEntities(text: string): string {
  return text.includes('&') ? text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[e]!) : text;
}

function yamlCredentials(text: string): SecretFinding[] {
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    docs = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false });
  } catch {
    return [];
  }
  if (!Array.isArray(docs)) return [];
  const out: SecretFinding[] = [];
  const take = (node: Scalar, kind: CredentialKind) => {
    const span = scalarContent(text, node);
    if (!span) return;
    const value = text.slice(span[0], span[1]);
    // A plain value of words is prose ("Password: at least 12 characters"); a quoted or block one
    // is the value as its writer set it down.
    if (node.type === 'PLAIN' && /\s/.test(value)) return;
    if (isPlaceholder(value) || NOT_A_SECRET.test(value)) return;
    if (kind === 'token' ? !credentialShaped(value) : value.length < 4) return;
    out.push({ rule: 'yaml-credential', start: span[0], end: span[1] });
  };
  for (const doc of docs) {
    if (doc.errors.length > 0) continue;
    visit(doc, {
      Pair(_key, pair) {
        const kind = isScalar(pair.key) && typeof pair.key.value === 'string' ? credentialKind(pair.key.value) : null;
        if (!kind) return;
        if (isScalar(pair.value)) take(pair.value, kind);
        else if (isSeq(pair.value)) for (const item of pair.value.items) if (isScalar(item)) take(item, kind);
      },
    });
  }
  return out;
}

/**
 * Where a scalar's content stands in the text: a plain one whole, a quoted one inside its quotes,
 * a block scalar from its first line of content to its last character (its header, `|` or `>-`,
 * stays, so the text is still YAML). Null for one that is no string of the text.
 */
function scalarContent(text: string, node: Scalar): [number, number] | null {
  const range = node.range;
  if (!range || typeof node.value !== 'string') return null;
  let [start, end] = [range[0], range[1]];
  if (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') {
    start += 1;
    end -= 1;
  } else if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
    const header = text.indexOf('\n', start);
    if (header < 0 || header >= end) return null;
    start = header + 1;
  }
  while (start < end && /\s/.test(text[start]!)) start += 1;
  while (end > start && /\s/.test(text[end - 1]!)) end -= 1;
  return end > start ? [start, end] : null;
}

/** A Markdown table's line under its header: cells of dashes, with or without colons. */
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** What a credential's cell or value holds when it holds none (a table's, a YAML key's). */
const NOT_A_SECRET = /^(?:true|false|null|none|n\/a|na|-+|—|–|yes|no|unset|empty|required|optional|tbd|\?+)$/i;

/**
 * A table row's cells, each trimmed, with where its content stands in the text (backticks around
 * a cell's value are not part of it).
 */
function tableCells(line: string, offset: number): Array<{ text: string; start: number; end: number }> {
  const cells: Array<{ text: string; start: number; end: number }> = [];
  const bounds: number[] = [];
  for (let i = 0; i < line.length; i += 1) {
    if (line[i] === '\\') i += 1;
    else if (line[i] === '|') bounds.push(i);
  }
  // The pipes at a row's ends are optional: a cell runs between two bounds.
  const first = line.slice(0, bounds[0]).trim() === '' ? [] : [-1];
  const last = line.slice((bounds.at(-1) ?? -1) + 1).trim() === '' ? [] : [line.length];
  const edges = [...first, ...bounds, ...last];
  for (let k = 0; k + 1 < edges.length; k += 1) {
    let start = edges[k]! + 1;
    let end = edges[k + 1]!;
    while (start < end && /\s/.test(line[start]!)) start += 1;
    while (end > start && /\s/.test(line[end - 1]!)) end -= 1;
    if (end - start >= 2 && line[start] === '`' && line[end - 1] === '`') {
      start += 1;
      end -= 1;
    }
    cells.push({ text: line.slice(start, end), start: offset + start, end: offset + end });
  }
  return cells;
}

const TABLE_TOKEN_NAME = new RegExp(`(?:token|apikey|${KEY_KIND}key)s?$`);
type CredentialKind = 'password' | 'token';

/** A table's columns named for a credential, and the column holding each row's value (if any). */
interface TableColumns {
  named: Map<number, CredentialKind>;
  value: number | null;
}

/**
 * What a header or a row's label names: a password (or secret), a token (or a key of a kind), or
 * nothing. Markup, a parenthesis after the name ("Password (prod)") and a colon are not part of it.
 */
function credentialKind(label: string): CredentialKind | null {
  const name = label
    .replace(/<[^>]*>/g, '')
    .replace(/[*_`]/g, '')
    .replace(/\([^)]*\)\s*$/, '')
    .replace(/[:.\s-]+/g, '')
    .toLowerCase();
  if (/(?:password|passwd|passphrase|pwd|secret|credential)s?$/.test(name)) return 'password';
  if (TABLE_TOKEN_NAME.test(name)) return 'token';
  return null;
}

function tableColumns(header: ReadonlyArray<{ text: string }>): TableColumns | null {
  const named = new Map<number, CredentialKind>();
  let value: number | null = null;
  header.forEach((cell, i) => {
    const kind = credentialKind(cell.text);
    if (kind) named.set(i, kind);
    else if (i > 0 && value === null && /^(?:value|values|default|current|setting)s?$/i.test(cell.text.replace(/[*_`]/g, '').trim())) value = i;
  });
  // Two columns: the second is the first's value (`| Setting | |`, `| Key | Val |`).
  if (value === null && header.length === 2 && !named.has(1)) value = 1;
  return { named, value };
}

/** Findings for the first capture group of each match (the value, not its setting's name). */
/**
 * A setting's value from the first of `groups` that matched (its quoted or bare spelling), with
 * where it is; none for a placeholder such as `${PASSWORD}`.
 */
function quotedValue(m: RegExpMatchArray, groups: readonly number[]): { value: string; span: [number, number] } | null {
  const group = groups.find((g) => m[g] !== undefined);
  const span = group === undefined ? undefined : m.indices?.[group];
  const value = group === undefined ? undefined : m[group];
  return span && value !== undefined && !isPlaceholder(value) ? { value, span } : null;
}

function valueGroups(text: string, re: RegExp, rule: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  for (const m of text.matchAll(re)) {
    const span = m.indices?.[1];
    if (!span || isPlaceholder(m[1]!)) continue;
    out.push({ rule, start: span[0], end: span[1] });
  }
  return out;
}

/**
 * Canon's own rules over one string. A rule is asked only of a text holding one of the literals
 * it needs: ingest asks this of every string it is sent (five or more an episode), nearly all of
 * which hold none.
 */
export function canonSecretFindings(text: string): SecretFinding[] {
  const found = rulesOver(text);
  // A name written to slip past the rules — a zero-width space inside it (`pass\u200bword: …`),
  // full-width letters (`ｐａｓｓｗｏｒｄ: …`), percent-escapes (`ghp%5F…`) — is read as it shows
  // or as it decodes: the rules are asked again of the text without its invisible characters, its
  // escapes of a token's characters decoded, in its compatibility forms (NFKC), and what they find
  // there is mapped back to where it stands. Another script's look-alike letters are not.
  if (DISGUISED.test(text)) {
    const fold = foldForRules(text);
    found.push(...unfoldFindings(fold, rulesOver(fold.folded)));
  }
  return found.length === 0 ? found : outsideMarkers(text, onePerSpan(found));
}

/** Canon's rules over one text as written, each asked only if the text holds a literal it needs. */
export function rulesOver(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  for (let i = 0; i < CANON_SECRET_RULES.length; i += 1) {
    const rule = CANON_SECRET_RULES[i]!;
    if (!NEEDS[i]!.test(text)) continue;
    const own = rule.find(text);
    if (own.length > 0) found.push(...own);
  }
  return found;
}

/**
 * An invisible format character, a full-width or other compatibility form of an ASCII one, or a
 * percent-escape (`ghp%5F…`: a token pasted from a URL's query).
 */
const DISGUISED = /[\p{Cf}\uFF01-\uFF5E\u3000]|%[0-9A-Fa-f]{2}/u;


/**
 * Whether a text may hide a secret from rules that read it as written: an invisible character
 * inside a token (`ghp_…\u200b…`), full-width letters, a percent-escape (`ghp%5F…`). The compiler's
 * normalization drops the invisible ones, so such a token would come back whole in a memory; an
 * escaped one is the token to anyone who decodes it.
 */
export function isDisguised(text: string): boolean {
  return DISGUISED.test(text);
}

/**
 * Findings made on a text's folded form (`foldForRules`), read on the text itself: each span
 * runs from where the character its first unit came from starts to where its last one's ends, so
 * the invisible characters inside a secret are replaced with it.
 */
export function unfoldFindings(fold: { starts: readonly number[]; ends: readonly number[] }, findings: readonly SecretFinding[]): SecretFinding[] {
  return findings.filter((f) => f.end > f.start).map((f) => ({ rule: f.rule, start: fold.starts[f.start]!, end: fold.ends[f.end - 1]! }));
}

/**
 * The text without its format characters, each percent-escape of a token's character decoded, and
 * each other character in its NFKC form, with, for every UTF-16 unit of the result, where the
 * character it came from starts and ends in the text.
 */
export function foldForRules(text: string): { folded: string; starts: number[]; ends: number[] } {
  let folded = '';
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x25 /* % */) {
      const escaped = String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 3), 16));
      // Only a character of a token's alphabet: an escaped space or separator stays as written.
      if (/^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3)) && TOKEN_CHAR.test(escaped)) {
        folded += escaped;
        starts.push(i);
        ends.push(i + 3);
        i += 3;
        continue;
      }
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + width);
    if (!/\p{Cf}/u.test(ch)) {
      const form = ch.normalize('NFKC');
      folded += form;
      for (let k = 0; k < form.length; k += 1) {
        starts.push(i);
        ends.push(i + width);
      }
    }
    i += width;
  }
  return { folded, starts, ends };
}

/**
 * Runs of base64 (either alphabet) that decode to text, with that text: a secret written encoded
 * — a Kubernetes Secret's `data:` value, a registry's `auth`, a token pasted as base64 — matches
 * no rule as written. A run is 24 characters or more (18 bytes, fewer than any credential the
 * rules know); it counts when its bytes are UTF-8 with no control character but a tab or a line
 * break. Identifiers, hashes and binary data decode to bytes that are not (18 random bytes are all
 * printable about once in 40 million), so only encoded text is read again. A run after a path's
 * slash (`/v1/auth/dXNl…`) is tried from its last slash too; each run is decoded at most twice.
 */
export function encodedRuns(text: string): Array<{ start: number; end: number; decoded: string }> {
  if (text.length < MIN_ENCODED) return [];
  const out: Array<{ start: number; end: number; decoded: string }> = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    const whole = decodedText(m[0]);
    if (whole !== null) {
      out.push({ start: m.index, end: m.index + m[0].length, decoded: whole });
      continue;
    }
    const slash = m[0].lastIndexOf('/');
    if (slash < 0 || m[0].length - slash - 1 < MIN_ENCODED) continue;
    const tail = decodedText(m[0].slice(slash + 1));
    if (tail !== null) out.push({ start: m.index + slash + 1, end: m.index + m[0].length, decoded: tail });
  }
  return out;
}

const MIN_ENCODED = 24;
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function decodedText(run: string): string | null {
  const bytes = Buffer.from(run, 'base64');
  if (bytes.length < 18) return null;
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i]!;
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f) return null;
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Each rule's literals as one pattern that matches where any of them occurs. One scan of the text
 * a rule, where a loop of `includes` scanned it once a literal: a rule that needs sixteen (the
 * providers' token prefixes) read each text sixteen times, and nearly every text holds none of
 * them. On the ingest benchmark's texts the checks took 1.1 µs an episode against 2.6.
 */
const NEEDS: readonly RegExp[] = CANON_SECRET_RULES.map((rule) => new RegExp(rule.needs.map(escapeLiteral).join('|')));

function escapeLiteral(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * Two rules may name one span (`client_secret: …` is a password setting and a credential's, a
 * kubeconfig's `token: …` a credential's too): one finding, named as `mergeFindings` names a tie
 * (the rule first in code order), the findings in the text's order.
 */
export function onePerSpan(findings: readonly SecretFinding[]): SecretFinding[] {
  const bySpan = new Map<string, SecretFinding>();
  for (const f of findings) {
    const key = `${f.start}:${f.end}`;
    const held = bySpan.get(key);
    if (!held || f.rule < held.rule) bySpan.set(key, f);
  }
  return [...bySpan.values()].sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * Overlapping findings (two rules on one key, a rule inside another's match) become one span,
 * named by the rule that starts first (the longest on a tie): one marker per secret.
 */
export function mergeFindings(findings: readonly SecretFinding[]): SecretFinding[] {
  return mergeSpans(findings);
}

// The characters of a credential's token: base64 and its URL-safe form, hex, a JWT's dots between.
const TOKEN_CHAR = /[A-Za-z0-9+/=_~-]/;

/**
 * Each finding narrowed to its value and carried to the end of the token it ends inside (for
 * secretlint's: Canon's own rules start and end where their values do). secretlint's AWS rule reads
 * `aws_secret_access_key: <40 characters>` as the name and the key's first 17: redacted there, 23
 * characters of the key stayed in the log, searchable. A finding never ends inside a credential.
 */
export function toTokenEnds(text: string, findings: readonly SecretFinding[]): SecretFinding[] {
  return findings.map((f) => {
    let { start, end } = f;
    // secretlint's AWS finding opens with its setting's name (`aws_secret_access_key: …`): it starts
    // at the value, since with the name replaced too a YAML file no longer parsed, and lost every
    // setting. (Other rules' names stay as they were: a marker's rule is part of what is stored.)
    const named = f.rule === 'aws' ? SETTING_NAME.exec(text.slice(start, end)) : null;
    if (named && named[0].length < end - start) start += named[0].length;
    // A value in quotes ends at its closing quote: secretlint's connection-string rules ran on
    // through it (`"postgres://…", "pool": 5`), and a file whose quote went with the secret no
    // longer parsed.
    const quote = start > 0 ? text[start - 1] : undefined;
    if (quote === '"' || quote === "'" || quote === '`') {
      const closing = text.indexOf(quote, start);
      if (closing >= 0 && closing < end) end = closing;
    }
    if (end > start && end < text.length && TOKEN_CHAR.test(text[end - 1]!)) {
      while (end < text.length && (TOKEN_CHAR.test(text[end]!) || (text[end] === '.' && end + 1 < text.length && TOKEN_CHAR.test(text[end + 1]!)))) end += 1;
    }
    return start === f.start && end === f.end ? f : { ...f, start, end };
  });
}

// A YAML or JSON member's name (`name: `, `"name": "`): there the rule cut the key short. Its
// `name = value` form it matches whole, as stored markers have it.
const SETTING_NAME = /^["']?[A-Za-z_][A-Za-z0-9_.-]*["']?[ \t]*:[ \t]*["']?/;

function mergeSpans(findings: readonly SecretFinding[]): SecretFinding[] {
  const sorted = [...findings]
    .filter((f) => f.end > f.start)
    .sort((a, b) => a.start - b.start || b.end - a.end || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  const merged: SecretFinding[] = [];
  for (const f of sorted) {
    const last = merged.at(-1);
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ ...f });
  }
  return merged;
}

/** Replaces each (merged) finding by its marker. */
export function redactText(workspaceId: string, text: string, findings: readonly SecretFinding[]): string {
  let out = '';
  let at = 0;
  for (const f of mergeFindings(findings)) {
    out += text.slice(at, f.start) + redactionMarker(workspaceId, f.rule, text.slice(f.start, f.end));
    at = f.end;
  }
  return out + text.slice(at);
}

/** One string of an envelope, where it stands. */
export interface EnvelopeString {
  path: string;
  text: string;
}

/**
 * The fields a secret can arrive in: the key, subject, lineage, source_ref and every string of
 * the body — values and object keys, at any depth. Source, kind and scope are slugs or enums
 * (a marker would not fit their shape), workspace, owner and actor come from the credential.
 */
const TEXT_FIELDS = ['idempotency_key', 'subject', 'lineage', 'source_ref'] as const;

/** Every string of the envelope a secret can be in, in a fixed order. */
export function envelopeStrings(envelope: Envelope): EnvelopeString[] {
  const out: EnvelopeString[] = [];
  // The walk `mapEnvelopeStrings` makes, without building a copy of the envelope.
  const keep = (path: string, text: string) => {
    out.push({ path, text });
    return text;
  };
  walkEnvelope(envelope, keep, false);
  return out;
}

/**
 * The texts `envelopeStrings` lists, in its order, pushed onto `out`; returns how many. Without
 * their paths, which ingest needs only for the rare string that holds a secret
 * (`mapEnvelopeStrings` gives them then), it allocates nothing of its own per string.
 */
export function pushEnvelopeTexts(envelope: Envelope, out: string[]): number {
  const before = out.length;
  for (let i = 0; i < TEXT_FIELDS.length; i += 1) {
    const v = envelope[TEXT_FIELDS[i]!];
    if (typeof v === 'string') out.push(v);
  }
  pushJsonTexts(envelope.body, out);
  return out.length - before;
}

/**
 * Which of the strings `pushEnvelopeTexts` lists are credentials by where they stand, pushed onto
 * `out` in the same order (true: the whole string is one): a member named for a credential
 * (`{"password": "…"}`, `"api_key"`, `"db_pw"`, at any depth, in a list under it too) and a
 * claim's value whose predicate names one (`{"predicate": "db password", "value": "…"}`). Each
 * string alone says nothing of the name it stands under, so the text rules never saw these.
 */
export function pushEnvelopeCredentialFlags(envelope: Envelope, out: boolean[]): void {
  for (let i = 0; i < TEXT_FIELDS.length; i += 1) if (typeof envelope[TEXT_FIELDS[i]!] === 'string') out.push(false);
  pushJsonCredentialFlags(envelope.body, out, null);
}

/** `pushJsonTexts`' walk, each string flagged when it is a credential under `named`. */
export function pushJsonCredentialFlags(value: unknown, out: boolean[], named: MemberKind | null): void {
  if (typeof value === 'string') {
    out.push(named !== null && credentialValue(value, named === 'bundle' ? 'password' : named));
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) pushJsonCredentialFlags(value[i], out, named);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    // A claim: its value is what its predicate names.
    const predicate = typeof record['predicate'] === 'string' && 'value' in record ? memberKind(record['predicate']) : null;
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i]!;
      out.push(false);
      const own = memberKind(key) ?? (key === 'value' ? predicate : null);
      // Members under a password's name hold passwords (`"passwords": {"prod": …}`); under a
      // bundle's (`"credentials": {"user": …, "password": …}`) each member says what it is.
      pushJsonCredentialFlags(record[key], out, own ?? (named === 'bundle' ? null : named));
    }
  }
}

/**
 * What a member's name (or a claim's predicate) names: a password (`password`, `db_pw`,
 * `DB_PASS`, `client_secret`), a token (`api_key`, `accessToken`, `signing-key`), or credentials
 * (a string under it is one, an object's members name themselves); `key`, `primary_key`,
 * `password_policy`, `bypass` and `passwordless` name none.
 */
type MemberKind = CredentialKind | 'bundle';

/** A word every name `memberKind` reads as a credential's holds, in any case. */
const MEMBER_WORD = /pass|pw|secret|credential|token|key/i;

function memberKind(name: string): MemberKind | null {
  // Every key of every body passes here on ingest: most name nothing of the kind, and are told so
  // without a copy of the name being made.
  if (name.length > 64 || !MEMBER_WORD.test(name)) return null;
  const flat = name.replace(/[\s_.:-]+/g, '').toLowerCase();
  if (/credentials?$/.test(flat)) return 'bundle';
  if (/(?:password|passwd|passphrase|pwd|secret)s?$/.test(flat)) return 'password';
  // `pass` and `pw` as a word of the name (`DB_PASS`, `dbPw`), not the end of one (`bypass`).
  if (/(?:^|[\s_.:-])(?:pass|pw)$/i.test(name) || /[a-z0-9](?:Pass|Pw|PW)$/.test(name)) return 'password';
  return TABLE_TOKEN_NAME.test(flat) ? 'token' : null;
}

/**
 * A credential's value as a table's cell or a member holds one: a password's when it is one token
 * of four characters or more, a token's when shaped like a credential; never a placeholder, a
 * reference to where one is kept, or a word such as `required`.
 */
function credentialValue(value: string, kind: CredentialKind): boolean {
  if (/\s/.test(value) || isPlaceholder(value) || NOT_A_SECRET.test(value) || value.startsWith('[redacted:')) return false;
  return kind === 'token' ? credentialShaped(value) : value.length >= 4;
}

/** `walkJson`'s order: an array's elements in turn, an object's key before its value. */
export function pushJsonTexts(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) pushJsonTexts(value[i], out);
  } else if (value !== null && typeof value === 'object') {
    // Object.keys lists what Object.entries does (walkJson), in the same order.
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    for (let i = 0; i < keys.length; i += 1) {
      out.push(keys[i]!);
      pushJsonTexts(record[keys[i]!], out);
    }
  }
}

/**
 * The envelope with every string passed through `fn`, always in the same order (callers match
 * strings by position). An object's keys are strings too; their path is the object's followed
 * by `.{}`, so a path never spells out a key that held a secret.
 */
export function mapEnvelopeStrings(envelope: Envelope, fn: (path: string, text: string) => string): Envelope {
  return walkEnvelope(envelope, fn, true);
}

/** A JSON value with every string (keys too) passed through `fn`, in `pushJsonTexts`'s order. */
export function mapJsonStrings(value: unknown, fn: (text: string) => string): unknown {
  return walkJson(value, '', (_path, text) => fn(text), true);
}

/** The one walk over an envelope's strings; with `copy`, the envelope rebuilt from `fn`'s answers. */
function walkEnvelope(envelope: Envelope, fn: (path: string, text: string) => string, copy: boolean): Envelope {
  const out: Envelope = copy ? { ...envelope } : envelope;
  for (const field of TEXT_FIELDS) {
    const v = envelope[field];
    if (typeof v === 'string') {
      const mapped = fn(field, v);
      if (copy) out[field] = mapped;
    }
  }
  const body = walkJson(envelope.body, 'body', fn, copy);
  if (copy) out.body = body as Envelope['body'];
  return out;
}

function walkJson(value: unknown, path: string, fn: (path: string, text: string) => string, copy: boolean): unknown {
  if (typeof value === 'string') return fn(path, value);
  if (Array.isArray(value)) {
    if (copy) return value.map((v, i) => walkJson(v, `${path}.${i}`, fn, copy));
    value.forEach((v, i) => walkJson(v, `${path}.${i}`, fn, copy));
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const entries: Array<[string, unknown]> = [];
    for (const [k, v] of Object.entries(value)) {
      const key = fn(`${path}.{}`, k);
      const mapped = walkJson(v, `${path}.${key}`, fn, copy);
      if (copy) entries.push([key, mapped]);
    }
    // fromEntries defines properties, so a `__proto__` key stays a key.
    return copy ? Object.fromEntries(entries) : value;
  }
  return value;
}
