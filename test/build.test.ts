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
