import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';

export interface WalkEntry {
  /** Root-relative path with `/` separators. */
  path: string;
  absolute: string;
}

export interface WalkResult {
  files: WalkEntry[];
  /**
   * Entries passed over, by reason: `ignored` (an ignored folder counts once), `not_included`,
   * `secret_file`, `symlink`, `special`.
   */
  skipped: Record<string, number>;
}

interface Rules {
  /** The folder (root-relative, '' for the root) whose .gitignore these are. */
  base: string;
  ig: Ignore;
}

/**
 * Lists the files under `root` that git would consider: `.git` is never entered, and each
 * folder's `.gitignore` applies to the paths below it (plus `extra` patterns at the root).
 * Files matching `secretFiles` (gitignore syntax, from the root) are passed over as
 * `secret_file` without being opened. When `include` holds patterns, only the files matching one
 * of them are listed (the others count as `not_included`); it narrows what .gitignore and `extra`
 * leave, never brings an ignored file back. Symbolic links are not followed: a link can leave the
 * root or loop. Paths come out sorted, so a scan is deterministic.
 */
export async function walk(
  root: string,
  extra: readonly string[],
  signal?: AbortSignal,
  secretFiles: readonly string[] = [],
  include: readonly string[] = [],
): Promise<WalkResult> {
  const files: WalkEntry[] = [];
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  const rootRules: Rules[] = extra.length > 0 ? [{ base: '', ig: ignore().add([...extra]) }] : [];
  const secrets = secretFiles.length > 0 ? ignore().add([...secretFiles]) : null;
  // The `ignore` package answers "does a pattern match": for the include list, a match keeps it.
  const included = include.length > 0 ? ignore().add([...include]) : null;

  async function visit(dir: string, rules: Rules[]): Promise<void> {
    signal?.throwIfAborted();
    const absolute = join(root, dir);
    const own = await readGitignore(absolute);
    const active = own === null ? rules : [...rules, { base: dir, ig: ignore().add(own) }];
    const entries = (await readdir(absolute, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = dir === '' ? entry.name : posix.join(dir, entry.name);
      if (entry.isDirectory() && entry.name === '.git') continue;
      if (isIgnored(active, path, entry.isDirectory())) {
        skip('ignored');
      } else if (entry.isSymbolicLink()) {
        skip('symlink');
      } else if (entry.isDirectory()) {
        await visit(path, active);
      } else if (entry.isFile() && included && !included.ignores(path)) {
        skip('not_included');
      } else if (entry.isFile() && secrets?.ignores(path)) {
        skip('secret_file');
      } else if (entry.isFile()) {
        files.push({ path, absolute: join(root, ...path.split('/')) });
      } else {
        skip('special');
      }
    }
  }

  await visit('', rootRules);
  return { files, skipped };
}

function isIgnored(rules: readonly Rules[], path: string, directory: boolean): boolean {
  let ignored = false;
  // Deeper .gitignore files are consulted last, so their negations (`!keep.txt`) win, as in git.
  for (const { base, ig } of rules) {
    const relative = base === '' ? path : posix.relative(base, path);
    const result = ig.test(directory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

async function readGitignore(dir: string): Promise<string | null> {
  try {
    return await readFile(join(dir, '.gitignore'), 'utf8');
  } catch {
    return null;
  }
}
