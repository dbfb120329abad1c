import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentFormat } from './format.js';
import { keyPathString, parseKeyPath } from './key-path.js';
import { releaseHeading, statedDefault } from './markdown.js';
import { readDocument, settle } from './read-document.js';
import { MAX_DOCUMENT_FACTS } from './statement.js';

const facts = (path: string, text: string) =>
  readDocument(path, text).facts.map((f) => [f.predicate, ...(Object.keys(f.qualifiers).length ? [f.qualifiers] : []), f.value]);

describe('the format of a document, by name then content', () => {
  it.each([
    ['tsconfig.json', 'jsonc'],
    ['tsconfig.build.json', 'jsonc'],
    ['package.json', 'package.json'],
    ['package-lock.json', 'lockfile'],
    ['data.json', 'json'],
    ['.github/workflows/ci.yml', 'yaml'],
    ['Cargo.toml', 'toml'],
    ['pyproject.toml', 'pyproject.toml'],
    ['.env.example', 'dotenv'],
    ['.editorconfig', 'ini'],
    ['setup.cfg', 'ini'],
    ['requirements-dev.txt', 'requirements.txt'],
    ['go.mod', 'go.mod'],
    ['Dockerfile', 'dockerfile'],
    ['docker/Dockerfile.prod', 'dockerfile'],
    ['docs/guide.md', 'markdown'],
    ['notes.txt', 'text'],
    ['LICENSE', 'text'],
    ['src/index.ts', 'code'],
    ['docs/.vitepress/config.mts', 'code'],
    ['main.py', 'code'],
    ['cmd/server/main.go', 'code'],
    ['logo.svg', 'other'],
  ])('%s → %s', (path, format) => {
    expect(documentFormat(path, '')).toBe(format);
  });

  it('a tool rc file with no extension is JSON or YAML by its first character', () => {
    expect(documentFormat('.nycrc', '{"all": true}')).toBe('jsonc');
    expect(documentFormat('.mocharc', 'spec: test')).toBe('yaml');
  });

  it('an extensionless script is code by its shebang; no path is JSON or Markdown by content', () => {
    expect(documentFormat('bin/run', '#!/bin/sh\necho hi')).toBe('code');
    expect(documentFormat(undefined, '{"a": 1}')).toBe('json');
    expect(documentFormat(undefined, '# Title\n\nText')).toBe('markdown');
  });
});

describe('structured files: one fact per leaf, keyed by its key path', () => {
  it('a tsconfig with comments and trailing commas (the issue: no longer read as prose)', () => {
    const text = '{\n  // strictness\n  "compilerOptions": {\n    "strict": true,\n    "target": "es2023",\n    // "noEmit": true,\n    "lib": ["es2023"],\n    "types": [],\n  },\n}\n';
    expect(facts('tsconfig.json', text)).toEqual([
      ['compilerOptions.strict', true],
      ['compilerOptions.target', 'es2023'],
      ['compilerOptions.lib', ['es2023']],
      ['compilerOptions.types', []],
    ]);
  });

  it('YAML: arrays of mappings by position, null leaves state nothing, `on` stays a key', () => {
    const text = 'on:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n';
    expect(facts('.github/workflows/ci.yml', text)).toEqual([
      ['on.push.branches', ['main']],
      ['jobs.test.runs-on', 'ubuntu-latest'],
      ['jobs.test.steps[0].uses', 'actions/checkout@v4'],
      ['jobs.test.steps[1].run', 'npm test'],
    ]);
  });

  it('YAML: a value redacted at the door is the marker, a string, not a list of one word', () => {
    const marker = '[redacted:connection-password:nukttgdfgcfd]';
    const text = `db:\n  host: db1\n  password: ${marker}\n  replicas: [db2, db3]\n  tokens:\n    - ${marker}\n`;
    expect(facts('config.yaml', text)).toEqual([
      ['db.host', 'db1'],
      ['db.password', marker],
      ['db.replicas', ['db2', 'db3']],
      ['db.tokens', [marker]],
    ]);
  });

  it('docker-compose services and images are key paths', () => {
    expect(facts('docker-compose.yml', 'services:\n  db:\n    image: postgres:17\n    ports: ["5432:5432"]\n')).toEqual([
      ['services.db.image', 'postgres:17'],
      ['services.db.ports', ['5432:5432']],
    ]);
  });

  it('package.json: identity, scripts, engines and dependencies; not the description or keywords', () => {
    const text = JSON.stringify({ name: 'x', version: '1.0.0', description: 'A thing', keywords: ['a'], scripts: { test: 'vitest' }, dependencies: { '@scope/dep': '^2.0.0' }, engines: { node: '>=22' } });
    expect(facts('package.json', text)).toEqual([
      ['name', 'x'],
      ['version', '1.0.0'],
      ['engines.node', '>=22'],
      ['scripts.test', 'vitest'],
      ['dependencies.@scope/dep', '^2.0.0'],
    ]);
  });

  it('INI values are text as written, section names keep their dots', () => {
    expect(facts('.editorconfig', 'root = true\n\n[*.md]\nmax_line_length = off\n')).toEqual([
      ['root', 'true'],
      ['["*.md"].max_line_length', 'off'],
    ]);
  });

  it('.env: export, quotes and comments by dotenv rules', () => {
    expect(facts('.env.example', '# db\nexport DB_HOST=localhost # local\nDB_NAME="canon"\nTAG=a#b\n')).toEqual([
      ['DB_HOST', 'localhost'],
      ['DB_NAME', 'canon'],
      ['TAG', 'a#b'],
    ]);
  });

  it('TOML, and pyproject dependencies one per package', () => {
    expect(facts('Cargo.toml', '[package]\nname = "x"\n[dependencies]\nserde = { version = "1.0", features = ["derive"] }\n')).toEqual([
      ['package.name', 'x'],
      ['dependencies.serde.version', '1.0'],
      ['dependencies.serde.features', ['derive']],
    ]);
    expect(facts('pyproject.toml', '[project]\nname = "x"\ndependencies = ["requests>=2.31", "rich"]\n')).toEqual([
      ['project.name', 'x'],
      ['project.dependencies.requests', '>=2.31'],
      ['project.dependencies.rich', '*'],
    ]);
  });

  it('requirements.txt, go.mod and a Dockerfile', () => {
    expect(facts('requirements.txt', '# pinned\nrequests==2.31.0\nrich[jupyter]>=13 ; python_version>"3.8"\n-r base.txt\n')).toEqual([
      ['requests', '==2.31.0'],
      ['rich', '>=13 ; python_version>"3.8"'],
    ]);
    expect(facts('go.mod', 'module example.com/app\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/text v0.14.0 // indirect\n)\n')).toEqual([
      ['module', 'example.com/app'],
      ['go', '1.22'],
      ['require["golang.org/x/text"]', 'v0.14.0'],
    ]);
    expect(facts('Dockerfile', 'FROM node:22 AS build\nRUN npm ci\nFROM gcr.io/distroless/nodejs22\nENV PORT=8080\nEXPOSE 8080\n')).toEqual([
      ['stages.build.FROM', 'node:22'],
      ['stages[1].FROM', 'gcr.io/distroless/nodejs22'],
      ['stages[1].ENV.PORT', '8080'],
      ['stages[1].EXPOSE', ['8080']],
    ]);
  });

  it('a settings file stating more than the bound is data: none of its facts, all counted', () => {
    const leaves = Object.fromEntries(Array.from({ length: MAX_DOCUMENT_FACTS.structured + 1 }, (_, i) => [`k${i}`, i]));
    const r = readDocument('results.json', JSON.stringify(leaves));
    expect(r.facts).toEqual([]);
    expect(r.dropped).toEqual({ too_many: MAX_DOCUMENT_FACTS.structured + 1 });
    expect(readDocument('ok.json', JSON.stringify({ a: 1 })).facts).toHaveLength(1);
  });

  it('a structured file its parser refuses states nothing and is counted', () => {
    const r = readDocument('broken.json', '{"a": ');
    expect(r.facts).toEqual([]);
    expect(r.dropped).toEqual({ unparsed: 1 });
  });
});

describe('Markdown: facts under their heading path, prose and code stay text', () => {
  it('the defaults of five options are five keys, not one disputed fact (the issue)', () => {
    const text = [
      '# queue', '', '## Options', '', '### retryLimit', '', 'How many times to retry. Default: 2', '',
      '### retentionDays', '', 'Days to keep jobs, defaults to `14 days`.', '', '```js', '// start in 5 minutes', '```', '',
      'If used together with `a`, `b` must be less than or equal to `c`.',
    ].join('\n');
    expect(facts('docs/options.md', text)).toEqual([
      ['default', { h2: 'Options', h3: 'retryLimit' }, '2'],
      ['default', { h2: 'Options', h3: 'retentionDays' }, '14 days'],
    ]);
  });

  it('a table is row × column under its headings, the title left out; an empty cell states nothing', () => {
    const text = '# Title\n\n## Config\n\n| Option | Type | Default |\n|---|---|---|\n| `port` | number | `5432` |\n| `host` | string |  |\n';
    expect(facts('README.md', text)).toEqual([
      ['Type', { h2: 'Config', row: 'port' }, 'number'],
      ['Default', { h2: 'Config', row: 'port' }, '5432'],
      ['Type', { h2: 'Config', row: 'host' }, 'string'],
    ]);
  });

  it('key: value list items, bold or not; a colon in code or in a bold sentence is no label; admonitions are not facts', () => {
    const text = '## Threat model\n\n### Overview\n\n- **Library Name:** qs\n- Owner: team-a\n- `status: 500` is returned\n- **depth: number** of levels\n- **Note:** this is prose\n- `name` - a description\n';
    expect(facts('THREAT_MODEL.md', text)).toEqual([
      ['Library Name', { h3: 'Overview' }, 'qs'],
      ['Owner', { h3: 'Overview' }, 'team-a'],
    ]);
  });

  it('a nested list takes its parent item as a qualifier', () => {
    expect(facts('a.md', '## Jobs\n\n## Options\n\n- retryLimit\n  - Default: 2\n- retryDelay\n  - Default: 0\n')).toEqual([
      ['Default', { h2: 'Options', l1: 'retryLimit' }, '2'],
      ['Default', { h2: 'Options', l1: 'retryDelay' }, '0'],
    ]);
  });

  it('a changelog gives each release its date, and its notes stay text', () => {
    const text = '# Changelog\n\n## [v1.1.0](https://x/compare) - 2024-12-11\n\n- Fix: a bug\n\n## Version 1.0.0\n\n2024.01.02\n\n- deps: x@1\n\n## 0.9.0\n\n- first\n';
    expect(facts('CHANGELOG.md', text)).toEqual([
      ['date', { h2: '1.1.0' }, '2024-12-11'],
      ['date', { h2: '1.0.0' }, '2024.01.02'],
    ]);
    expect(releaseHeading('2.0 migration guide')).toBeNull();
    expect(releaseHeading('3.0.2 / 2025-11-20')).toEqual({ version: '3.0.2', date: '2025-11-20' });
  });

  it('stated defaults, and sentences that state none', () => {
    expect(statedDefault('Enable or disable etag generation, defaults to true.')).toBe('true');
    expect(statedDefault("The default value is 'ignore'.")).toBe('ignore');
    expect(statedDefault('By default this module will send index.html files.')).toBeNull();
  });

  it('front matter, HTML headings and HTML tables with a header row', () => {
    const text = '---\ntitle: Home\nlayout: doc\n---\n\n<h2>Ports</h2>\n\n<table><tr><th>Service</th><th>Port</th></tr><tr><td>api</td><td>8080</td></tr></table>\n';
    expect(facts('index.md', text)).toEqual([['Port', { row: 'api' }, '8080']]);
  });

  it('plain text: key: value lines are facts, sentences are not', () => {
    expect(facts('notes.txt', 'Owner: platform-team\nThe deploy usually runs at night, when traffic is low.\n')).toEqual([['Owner', 'platform-team']]);
  });
});

describe('one document version never disputes itself', () => {
  it('two statements on one key with different values are both dropped and counted; the same value twice is one fact', () => {
    const text = '## Options\n\n- Default: 2\n- Default: 3\n- Owner: a\n- Owner: a\n';
    const r = readDocument('a.md', text);
    expect(r.facts.map((f) => [f.predicate, f.value])).toEqual([['Owner', 'a']]);
    expect(r.dropped).toEqual({ ambiguous: 2 });
  });

  it('property: settle leaves at most one fact per key, and keeps every key stated with one value', () => {
    const fact = fc.record({ predicate: fc.constantFrom('a', 'b', 'c'), qualifiers: fc.constantFrom<Record<string, string>>({}, { h2: 'x' }), value: fc.constantFrom('1', '2'), text: fc.constant('') });
    fc.assert(
      fc.property(fc.array(fact, { maxLength: 12 }), (input) => {
        const { facts: kept, ambiguous } = settle(input);
        const keys = kept.map((f) => JSON.stringify([f.predicate, f.qualifiers]));
        expect(new Set(keys).size).toBe(keys.length);
        const byKey = new Map<string, Set<string>>();
        for (const f of input) byKey.set(JSON.stringify([f.predicate, f.qualifiers]), (byKey.get(JSON.stringify([f.predicate, f.qualifiers])) ?? new Set()).add(f.value));
        const single = [...byKey.values()].filter((v) => v.size === 1).length;
        expect(kept.length).toBe(single);
        expect(kept.length + ambiguous).toBeLessThanOrEqual(input.length);
      }),
    );
  });
});

describe('source code and lockfiles are not memories', () => {
  it.each([
    ['src/app.ts', 'export const port = 8080; // Default: 8080\n'],
    ['main.py', 'PORT = 8080\n# Owner: team\n'],
    ['package-lock.json', '{"name": "x", "lockfileVersion": 3}'],
  ])('%s', (path, text) => {
    expect(readDocument(path, text).facts).toEqual([]);
  });
});

describe('key paths print unambiguously and read back', () => {
  it('examples', () => {
    expect(keyPathString(['compilerOptions', 'strict'])).toBe('compilerOptions.strict');
    expect(keyPathString(['exports', './package.json', 'import'])).toBe('exports["./package.json"].import');
    expect(keyPathString(['steps', 0, 'uses'])).toBe('steps[0].uses');
    expect(keyPathString(['a', '0'])).toBe('a["0"]');
  });

  it('property: parse(print(path)) is path, and two paths never print alike', () => {
    const part = fc.oneof(fc.string({ maxLength: 6 }), fc.nat({ max: 20 }), fc.constantFrom('a.b', '@scope/x', 'x[0]', '"q"', 'a\\b'));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), fc.array(part, { minLength: 1, maxLength: 4 }), (a, b) => {
        expect(parseKeyPath(keyPathString(a))).toEqual(a);
        if (JSON.stringify(a) !== JSON.stringify(b)) expect(keyPathString(a)).not.toBe(keyPathString(b));
      }),
    );
  });
});

describe('any text, any name: the extractor never throws and is deterministic', () => {
  it('property', () => {
    const name = fc.constantFrom('a.md', 'a.json', 'a.yaml', 'a.toml', '.env', 'a.ini', 'go.mod', 'Dockerfile', 'requirements.txt', 'package.json', 'a.txt');
    fc.assert(
      fc.property(name, fc.string({ maxLength: 300 }), (path, text) => {
        const r = readDocument(path, text);
        expect(readDocument(path, text)).toEqual(r);
        for (const f of r.facts) expect(f.predicate.trim()).not.toBe('');
      }),
      { numRuns: 300 },
    );
  });
});

describe('a document nested past what its parser is given is read for no fact, the same way in every process', () => {
  const deep: Array<[string, string]> = [
    ['a.json', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['a.json', `${'{"a":'.repeat(4500)}1${'}'.repeat(4500)}`],
    ['package.json', `{"name":"x","deps":${'['.repeat(65)}${']'.repeat(65)}}`],
    ['a.yaml', `${'- '.repeat(3000)}x`],
    ['a.toml', `a = ${'['.repeat(3000)}${']'.repeat(3000)}`],
    ['README.md', `${'>'.repeat(1900)} hi`],
    ['README.md', `${'> '.repeat(65)}hi`],
    ['README.md', `${'*'.repeat(5000)}a${'*'.repeat(5000)}`],
    ['notes.txt', `${'_'.repeat(20000)}a${'_'.repeat(20000)}`],
    ['README.md', `${'- '.repeat(3000)}x`],
    ['README.md', `${' '.repeat(600)}- x`],
  ];
  it.each(deep)('%s of %#', (path, text) => {
    const r = readDocument(path, text);
    expect(r.facts).toEqual([]);
    expect(r.dropped).toEqual({ too_deep: 1 });
  });

  it('reads real files as before: a rule of asterisks, quotes and lists a few deep, brackets in a string', () => {
    const md = readDocument('README.md', `# Deploys\n\n${'*'.repeat(80)}\n\n> > > The window is Tuesday.\n\n- a\n  - b\n    - c\n\nThe timeout is 30 seconds.\n`);
    expect(md.dropped).toEqual({});
    const json = readDocument('a.json', JSON.stringify({ pattern: '['.repeat(200), port: 8080 }));
    expect(json.dropped).toEqual({});
    expect(json.facts.map((f) => f.predicate)).toEqual(['pattern', 'port']);
  });

  it("reads any text of a document's greatest length made of one nesting mark without throwing", () => {
    fc.assert(
      fc.property(fc.constantFrom('a.json', 'a.yaml', 'a.toml', 'README.md', 'notes.txt'), fc.constantFrom('[', '{"a":', '>', '*', '_', '- ', '`', '1. '), fc.integer({ min: 1, max: 100_000 }), (path, unit, n) => {
        const text = unit.repeat(Math.ceil(n / unit.length)).slice(0, 100_000);
        expect(() => readDocument(path, text)).not.toThrow();
      }),
      { numRuns: 60 },
    );
  });
});
