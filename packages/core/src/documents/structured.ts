import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { parseAllDocuments, Scalar, visit } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { decode as decodeIni } from 'ini';
import type { Json } from '../normalize.js';
import { keyPathString, type KeyPath } from './key-path.js';
import type { DocumentFact } from './statement.js';
import { REDACTION_MARKER } from '../secrets.js';

/** A parsed structured file, or why it could not be read. */
export type Parsed = { ok: true; value: unknown } | { ok: false };

/**
 * A settings tree as facts, one per leaf, keyed by its key path: `compilerOptions.strict = true`.
 * An array of scalars is one value (`files = ["dist"]`, `types = []`: a list is a setting as a
 * whole); an array holding objects is walked by position (`steps[0].uses`). A null leaf (a YAML
 * key holding only a comment) and an empty object state nothing.
 */
export function flatten(value: unknown, base: KeyPath = []): DocumentFact[] {
  const facts: DocumentFact[] = [];
  const visit = (v: unknown, path: Array<string | number>, depth: number) => {
    if (depth > 32) return;
    if (Array.isArray(v)) {
      if (path.length === 0 && v.length === 0) return;
      if (v.every(isScalar)) {
        facts.push(fact(path, v.map(scalar)));
        return;
      }
      v.forEach((item, i) => visit(item, [...path, i], depth + 1));
      return;
    }
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) visit(child, [...path, k], depth + 1);
      return;
    }
    if (path.length === 0 || v === null || v === undefined) return;
    facts.push(fact(path, scalar(v)));
  };
  visit(value, [...base], 0);
  return facts;
}

function isScalar(v: unknown): boolean {
  return v === null || v instanceof Date || (typeof v !== 'object' && typeof v !== 'function');
}

/** A leaf as JSON: dates as ISO text, big and non-finite numbers as their text. */
function scalar(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  return String(v);
}

function fact(path: KeyPath, value: Json): DocumentFact {
  const predicate = keyPathString(path);
  return { predicate, qualifiers: {}, value, text: `${predicate} = ${JSON.stringify(value)}` };
}

/** JSON, and JSON with comments and trailing commas (tsconfig): jsonc-parser reads both. */
export function parseJson(text: string): Parsed {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  return errors.length > 0 || value === undefined ? { ok: false } : { ok: true, value };
}

const ONE_MARKER = new RegExp(`^${REDACTION_MARKER.source}$`);
const MARKER_OPENS_VALUE = new RegExp(`^([ \\t]*(?:- |[^\\s#'"\\[{][^:#\\n]*:[ \\t]+))(${REDACTION_MARKER.source}[^\\s#'"]+)[ \\t]*$`, 'gm');

/**
 * YAML 1.2 (the `yaml` package's core schema: `on:` stays a key, `no` stays a string). A stream
 * of several documents is walked by position: `[0].kind`, `[1].kind`.
 */
export function parseYaml(text: string): Parsed {
  try {
    // A plain value that opens with a marker and goes on (`url: [redacted:…]/0`, the rest of a
    // URL whose credential was replaced) is no YAML a parser reads: it is quoted, as the string it is.
    const read = text.includes('[redacted:') ? text.replace(MARKER_OPENS_VALUE, (_m, lead: string, value: string) => `${lead}'${value}'`) : text;
    const docs = parseAllDocuments(read, { uniqueKeys: false, prettyErrors: false });
    if (!Array.isArray(docs)) return { ok: true, value: null };
    if (docs.some((d) => d.errors.length > 0)) return { ok: false };
    // A plain value redacted at the door (`password: hunter2` → `password: [redacted:…]`) reads as
    // a flow sequence of one word: it is the marker, a string, as the value it replaced was.
    for (const d of docs) {
      visit(d, {
        Seq(_key, node) {
          const source = node.flow && node.range ? read.slice(node.range[0], node.range[1]).trim() : '';
          return ONE_MARKER.test(source) ? new Scalar(source) : undefined;
        },
      });
    }
    const values = docs.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown).filter((v) => v !== null && v !== undefined);
    return { ok: true, value: values.length === 1 ? values[0] : values };
  } catch {
    return { ok: false };
  }
}

export function parseTomlText(text: string): Parsed {
  try {
    return { ok: true, value: parseToml(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * INI through the `ini` package, with one change: a dot in a section name is part of the name
 * (`[*.md]` in .editorconfig, `[tool.pytest]`), not a nesting the package would otherwise make.
 */
export function parseIni(text: string): Parsed {
  try {
    const escaped = text.replace(/^(\s*\[)([^\]\n]*)(\]\s*)$/gm, (_m, open: string, name: string, close: string) => `${open}${name.replace(/\./g, '\\.')}${close}`);
    return { ok: true, value: asText(decodeIni(escaped, { bracketedArray: true })) };
  } catch {
    return { ok: false };
  }
}

/** INI values are text as written: the `ini` package's `true` / `false` / `null` back to words. */
function asText(value: unknown): unknown {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(asText);
  if (typeof value === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = asText(v);
    return out;
  }
  return value;
}

/**
 * The fields of a package.json a user recalls (design §3, manifests): identity, entry points,
 * engines, scripts and every dependency with its range. Descriptions, people, links, keywords,
 * `files`, `exports` and tool blocks riding in the manifest are left as text.
 */
const PACKAGE_FIELDS = [
  'name', 'version', 'license', 'type', 'main', 'module', 'types', 'typings', 'packageManager', 'engines', 'bin', 'scripts',
  'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies',
];

export function packageJsonFacts(value: unknown): DocumentFact[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const picked = Object.create(null) as Record<string, unknown>;
  for (const field of PACKAGE_FIELDS) if (Object.hasOwn(value, field)) picked[field] = (value as Record<string, unknown>)[field];
  return flatten(picked);
}

/**
 * `.env` files, by dotenv's rules (dotenv itself reads files, which the core may not): `KEY=value`,
 * an optional `export `, single, double or backtick quotes, `#` comments (inside an unquoted value
 * only after a space). Double-quoted values expand `\n`.
 */
export function parseDotenv(text: string): Parsed {
  // No prototype: a `__proto__=` line is a key like any other.
  const out = Object.create(null) as Record<string, string>;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const m = /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(.*)$/.exec(raw);
    if (!m) continue;
    const rest = m[2]!;
    const quote = rest[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      const end = rest.indexOf(quote, 1);
      if (end > 0) {
        const inner = rest.slice(1, end);
        out[m[1]!] = quote === '"' ? inner.replace(/\\n/g, '\n').replace(/\\r/g, '\r') : inner;
        continue;
      }
    }
    // In an unquoted value, `#` starts a comment only after a space: `a#b` is a value.
    out[m[1]!] = rest.replace(/(?:^|\s+)#.*$/, '').trim();
  }
  return { ok: true, value: out };
}
