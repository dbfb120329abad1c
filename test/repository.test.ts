import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// A user's clone has nothing beside it: nothing in the repository may read, or link to, a path
// outside it. These checks read the working tree as text, the way a reviewer would.
const ROOT = path.resolve('.');
// dist/ is the build of src/, which is read.
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'artifacts', 'dist']);

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    // Dot folders are tools' state (.canon, .canon-bench), except CI's own scripts.
    if (SKIPPED_DIRS.has(entry.name) || (entry.name.startsWith('.') && entry.name !== '.ci')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

const FILES = walk(ROOT);
const rel = (file: string) => path.relative(ROOT, file);
const inside = (target: string) => {
  const r = path.relative(ROOT, target);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
};

const CODE = /\.(ts|mts|cts|js|mjs|cjs|json|sh|ya?ml)$/;
// This file is left out: it holds the bad examples that show the checks can fail (built from
// parts, so that no line of it reads as a path outside the repository).
const SIBLING = ['sha', 'red'].join('');
const THIS_FILE = path.join(ROOT, 'test/repository.test.ts');
const codeFiles = FILES.filter((f) => f !== THIS_FILE && ((CODE.test(f) && !f.endsWith('package-lock.json')) || rel(f).startsWith('.ci/')));

/** Every quoted string of a file that is a relative path climbing up: '../x', "../../y", `../z`. */
export function climbingLiterals(text: string): string[] {
  return [...text.matchAll(/(['"`])((?:\.\.\/)+[^'"`\s]*)\1/g)].map((m) => m[2]!);
}

describe('the repository stands alone', () => {
  it('has code, tests and scripts to look at (the walk found them)', () => {
    expect(codeFiles.map(rel)).toEqual(expect.arrayContaining(['package.json', '.ci/run', 'test/compile-jobs.test.ts', 'packages/runtime/src/runtime.ts']));
  });

  it('no source, test or script file names the shared folder beside the repository', () => {
    const offenders = codeFiles.filter((f) => /\.\.\/shared\b|\bshared\/(fixtures|DESIGN\.md|STYLE\.md)/.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map(rel)).toEqual([]);
  });

  it('no relative path in a source, test or script file climbs above the repository root', () => {
    const offenders: string[] = [];
    for (const file of codeFiles) {
      for (const literal of climbingLiterals(fs.readFileSync(file, 'utf8'))) {
        if (!inside(path.resolve(path.dirname(file), literal))) offenders.push(`${rel(file)}: ${literal}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the check above would catch a path that climbs out (it is not vacuous)', () => {
    const file = path.join(ROOT, 'connectors/github/src/testing/replay-server.ts');
    // How the GitHub recordings were once read: from the folder beside the repository.
    const outside = `${'../'.repeat(5)}${SIBLING}/fixtures/github/`;
    const [literal] = climbingLiterals(`new URL('${outside}', import.meta.url)`);
    expect(literal).toBe(outside);
    expect(inside(path.resolve(path.dirname(file), literal!))).toBe(false);
    expect(inside(path.resolve(path.dirname(file), '../../fixtures/'))).toBe(true);
  });
});

// ---- Markdown links -------------------------------------------------------------------------

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/<[^>]+>/g, '').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Fenced blocks and inline code spans hold examples, not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Link targets of a Markdown file: inline links and images, reference definitions, HTML src/href. */
export function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) targets.push(m[1]!);
  for (const m of text.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g)) targets.push(m[1]!);
  return targets;
}

const markdownFiles = FILES.filter((f) => f.endsWith('.md'));

function brokenLinks(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = pathPart === '' ? file : pathPart.startsWith('/') ? path.join(ROOT, pathPart) : path.resolve(path.dirname(file), decodeURI(pathPart));
    if (!inside(resolved)) broken.push(`${target} (outside the repository)`);
    else if (resolved !== file && !fs.existsSync(resolved)) broken.push(`${target} (no such file)`);
    else if (anchor && resolved.endsWith('.md') && !headingAnchors(resolved === file ? text : fs.readFileSync(resolved, 'utf8')).has(anchor)) {
      broken.push(`${target} (no heading #${anchor})`);
    }
  }
  return broken;
}

describe('every Markdown link resolves inside the repository', () => {
  it('finds the Markdown files (README, design, connectors, results)', () => {
    expect(markdownFiles.map(rel)).toEqual(expect.arrayContaining(['README.md', 'docs/design.md', 'connectors/README.md', 'packages/core/README.md']));
  });

  for (const file of markdownFiles) {
    it(`${rel(file)}`, () => {
      expect(brokenLinks(file)).toEqual([]);
    });
  }

  it('every README links to the contract, docs/design.md', () => {
    const design = path.join(ROOT, 'docs/design.md');
    const missing = markdownFiles
      .filter((f) => path.basename(f) === 'README.md')
      .filter((f) => !linkTargets(fs.readFileSync(f, 'utf8')).some((t) => path.resolve(path.dirname(f), t.split('#')[0]!) === design));
    expect(missing.map(rel)).toEqual([]);
  });

  it('the link check catches what it must (it is not vacuous)', () => {
    // As if it were a file in test/: resolved from there, never written.
    const example = [
      '# Title',
      `[outside](../../${SIBLING}/DESIGN.md) [missing](nothing-here.md) [anchor](../docs/design.md#no-such-section)`,
      '[fine](../docs/design.md#4-the-fold) [self](#title) [bad self](#nope) `[code](../../x.md)`',
      '[ref]: ../../../etc/passwd',
      '```',
      '[fenced](../../y.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(path.join(ROOT, 'test', 'example.md'), example)).toEqual([
      `../../${SIBLING}/DESIGN.md (outside the repository)`,
      'nothing-here.md (no such file)',
      '../docs/design.md#no-such-section (no heading #no-such-section)',
      '#nope (no heading #nope)',
      '../../../etc/passwd (outside the repository)',
    ]);
    expect(headingAnchors('## 10. The public surface (v1)\n## Use it from an agent\n## Use it from an agent')).toEqual(
      new Set(['10-the-public-surface-v1', 'use-it-from-an-agent', 'use-it-from-an-agent-1']),
    );
  });
});
