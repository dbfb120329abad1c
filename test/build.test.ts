import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `tsc -b` builds a package after the packages its tsconfig references. A package that imports
// another without referencing it still builds where that one's dist/ happens to exist, and
// fails on a clean clone's `npm install`: these checks fail first, with the missing reference.
const ROOT = path.resolve('.');
const PACKAGES = ['packages', 'connectors'].flatMap((group) =>
  fs
    .readdirSync(path.join(ROOT, group), { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(ROOT, group, e.name, 'package.json')))
    .map((e) => `${group}/${e.name}`),
);
const json = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as Record<string, unknown>;
const nameOf = new Map(PACKAGES.map((p) => [String(json(`${p}/package.json`)['name']), p]));
const references = (file: string) => ((json(file)['references'] ?? []) as Array<{ path: string }>).map((r) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), r.path)));

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) sources(full, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

describe('the build', () => {
  it('lists every package in tsconfig.build.json', () => {
    expect(references('tsconfig.build.json').sort()).toEqual([...PACKAGES].sort());
  });

  it.each(PACKAGES)('%s references every package its sources import', (pkg) => {
    const imported = new Set<string>();
    for (const file of sources(path.join(ROOT, pkg, 'src'))) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/from '(@canon\/[a-z-]+)/g)) {
        const target = nameOf.get(m[1]!);
        if (target && target !== pkg) imported.add(target);
      }
    }
    const referenced = new Set(references(`${pkg}/tsconfig.json`));
    expect([...imported].filter((p) => !referenced.has(p)).sort()).toEqual([]);
  });

  it.each(PACKAGES.filter((p) => p !== 'packages/runtime' && p !== 'packages/testing'))('%s builds on the runtime\'s face, never on its internals', (pkg) => {
    const reaching = sources(path.join(ROOT, pkg, 'src')).filter((file) => fs.readFileSync(file, 'utf8').includes("'@canon/runtime/internals'"));
    expect(reaching.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  // The HTTP API calls the runtime through the `Runtime` object createApp is given, so that every
  // operation a route reaches is one the CLI and MCP reach the same way (as a method), and none
  // is a free function taking the runtime's pool. The rule: from '@canon/runtime', packages/api/src
  // imports, by name, only types (`import type`, `type X`), zod schemas (values with `safeParse`,
  // checked on the module itself), and these utilities, which hold no runtime state.
  const RUNTIME_UTILITIES = new Map([
    ['isUnavailable', 'tells a database outage (503) from a fault'],
    ['log', 'the process logger'],
    ['ingestAnswer', 'reshapes an ingest result for the wire'],
  ]);

  it('packages/api reaches runtime operations only through the Runtime object', async () => {
    const runtime = (await import('@canon/runtime')) as Record<string, unknown>;
    const offending: string[] = [];
    for (const file of sources(path.join(ROOT, 'packages/api/src'))) {
      const text = fs.readFileSync(file, 'utf8');
      const where = path.relative(ROOT, file);
      const named = [...text.matchAll(/\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*'@canon\/runtime'/g)];
      // A namespace, default, dynamic import or re-export would hide the names: none of those.
      const all = text.match(/'@canon\/runtime'/g)?.length ?? 0;
      if (all !== named.length) offending.push(`${where}: an import of '@canon/runtime' other than \`import { … } from\``);
      for (const [, typeOnly, list] of named) {
        if (typeOnly) continue;
        for (const spec of list!.split(',').map((x) => x.trim()).filter(Boolean)) {
          if (spec.startsWith('type ')) continue;
          const name = spec.split(/\s+as\s+/)[0]!;
          const value = runtime[name];
          const schema = typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
          if (!schema && !RUNTIME_UTILITIES.has(name)) offending.push(`${where}: ${name}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('exports the source to TypeScript tools and the build to Node', () => {
    for (const pkg of PACKAGES) {
      const exports = json(`${pkg}/package.json`)['exports'] as Record<string, Record<string, string>>;
      for (const [subpath, entry] of Object.entries(exports)) {
        expect(Object.keys(entry), `${pkg} ${subpath}`).toEqual(['source', 'types', 'default']);
        const stem = entry['source']!.replace(/^\.\/src\//, '').replace(/\.ts$/, '');
        expect(entry, `${pkg} ${subpath}`).toEqual({ source: `./src/${stem}.ts`, types: `./dist/${stem}.d.ts`, default: `./dist/${stem}.js` });
      }
    }
  });
});

// The store owns all SQL, one operation per file: `<concept>/<operation>.ts` exports one
// operation (an async function, or one answering a Promise) named as the file, and
// `<concept>/<concept>.int.test.ts` beside it has a `describe('<operation>'` for each. Row types
// and pure helpers live in the folder's other files, which run no SQL.
const STORE = path.join(ROOT, 'packages/store/src');
const CONCEPTS = fs
  .readdirSync(STORE, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
const OPERATION = /^export (?:async function (\w+)|function (\w+)\b[^{]*\bPromise<|const (\w+)\s*=\s*async\b)/gm;
const operationsIn = (text: string) => [...text.matchAll(OPERATION)].map((m) => (m[1] ?? m[2] ?? m[3])!);
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const operationsOf = (concept: string) =>
  sources(path.join(STORE, concept)).map((file) => ({ file: path.relative(STORE, file), text: fs.readFileSync(file, 'utf8') })).map((f) => ({ ...f, operations: operationsIn(f.text) }));

describe('the store', () => {
  it('keeps its SQL in concept folders', () => {
    expect(CONCEPTS.length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(STORE, 'sql'))).toBe(false);
  });

  it.each(CONCEPTS)('%s/ has one operation per file, named after it, and no SQL elsewhere', (concept) => {
    const files = operationsOf(concept);
    const wrong = files.flatMap(({ file, text, operations }) => {
      if (operations.length > 1) return [`${file} exports ${operations.length} operations: ${operations.join(', ')}`];
      if (operations.length === 1 && `${kebab(operations[0]!)}.ts` !== path.basename(file)) return [`${file} exports ${operations[0]}`];
      if (operations.length === 0 && /\.query\(/.test(text)) return [`${file} runs SQL outside an operation`];
      return [];
    });
    expect(wrong).toEqual([]);
    expect(files.some((f) => f.operations.length === 1)).toBe(true);
  });

  it.each(CONCEPTS)('%s/ tests each of its operations in its own integration test', (concept) => {
    const spec = path.join(STORE, concept, `${concept}.int.test.ts`);
    const text = fs.existsSync(spec) ? fs.readFileSync(spec, 'utf8') : '';
    const untested = operationsOf(concept)
      .flatMap((f) => f.operations)
      .filter((name) => !text.includes(`describe('${name}'`));
    expect(untested).toEqual([]);
  });
});
