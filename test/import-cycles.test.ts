import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No import cycle between the source files of the packages and connectors, type-only imports
 * included: a cycle makes module order matter and says two modules are one concept split in two.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const FOLDERS = ['packages', 'connectors'].flatMap((top) =>
  fs
    .readdirSync(path.join(ROOT, top), { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(ROOT, top, d.name, 'src')))
    .map((d) => path.join(ROOT, top, d.name, 'src')),
);

function sourcesOf(folder: string): string[] {
  return (fs.readdirSync(folder, { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f) && !/\.(?:test|spec)\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(folder, f));
}

/** Each workspace package's name and the entry of its sources: `@canon/core` → packages/core/src/index.ts. */
const ENTRIES = new Map(
  FOLDERS.map((src) => [JSON.parse(fs.readFileSync(path.join(src, '..', 'package.json'), 'utf8')).name as string, path.join(src, 'index.ts')] as const),
);

/** Relative imports, re-exports and imports of another workspace package, resolved to the files they name. */
function localImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2])!;
    const entry = ENTRIES.get(spec);
    if (entry && fs.existsSync(entry)) out.push(entry);
    if (!spec.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), spec).replace(/\.js$/, '');
    const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
    if (found) out.push(found);
  }
  return out;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

describe('source files import each other without a cycle', () => {
  const files = FOLDERS.flatMap(sourcesOf);
  const graph = new Map(files.map((f) => [f, localImports(f, fs.readFileSync(f, 'utf8'))] as const));

  it('reads every package and connector, and finds a cycle where there is one', () => {
    expect(FOLDERS.length).toBeGreaterThanOrEqual(10);
    expect(files.some((f) => f.endsWith(path.join('runtime', 'src', 'runtime.ts')))).toBe(true);
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
    expect(localImports(path.join(ROOT, 'packages/runtime/src/runtime.ts'), "import type { X } from './ops/config.js';\nimport { y } from '@canon/core';")).toEqual([
      path.join(ROOT, 'packages/runtime/src/ops/config.ts'),
      path.join(ROOT, 'packages/core/src/index.ts'),
    ]);
  });

  it('has none', () => {
    const rel = (f: string) => path.relative(ROOT, f);
    expect(cycles(graph).map((c) => c.map(rel).join(' → '))).toEqual([]);
  });
});
