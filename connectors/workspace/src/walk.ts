import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
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
  /**
   * For rules of a folder above the root: the root's path from that folder, with a trailing `/`,
   * put before a root-relative path to match it as git would from there.
   */
  above?: string;
  ig: Ignore;
}

/**
 * Lists the files under `root` that git would consider: `.git` is never entered, and each
 * folder's `.gitignore` applies to the paths below it (plus `extra` patterns at the root). When
 * the root is in a git repository, what git reads above it applies too: the repository's
 * `.git/info/exclude` and the `.gitignore` of each folder from the repository's top down to the
 * root (`rulesAbove`) — a scan of `packages/app` leaves out the `node_modules/` and `dist/` the
 * top-level `.gitignore` names.
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
  const rootRules: Rules[] = [...(await rulesAbove(root)), ...(extra.length > 0 ? [{ base: '', ig: ignore().add([...extra]) }] : [])];
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
  for (const { base, above, ig } of rules) {
    const relative = above !== undefined ? above + path : base === '' ? path : posix.relative(base, path);
    const result = ig.test(directory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

async function readGitignore(dir: string): Promise<string | null> {
  return readText(join(dir, '.gitignore'));
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The rules git applies to the root from above it: the nearest folder above the root holding a
 * `.git` (a folder, or a worktree's file) is the repository's top; its `.git/info/exclude`, then
 * each folder's `.gitignore` from the top down to the root's parent. None when the root is not in a
 * repository, or is the top itself (the root's own `.gitignore` is read by the walk). Decided: when
 * these rules ignore the root itself (a scan of `node_modules/some-package`, which the top-level
 * `.gitignore` names), the folder was asked for by name and none of them apply.
 */
async function rulesAbove(root: string): Promise<Rules[]> {
  const start = resolve(root);
  let top: string | null = null;
  for (let dir = start; ; dir = dirname(dir)) {
    if (await exists(join(dir, '.git'))) {
      top = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  if (top === null) return [];
  const rules: Rules[] = [];
  const from = (dir: string) => {
    const path = relative(dir, start).split(sep).join('/');
    return path === '' ? '' : `${path}/`;
  };
  const exclude = await readText(join(top, '.git', 'info', 'exclude'));
  if (exclude !== null) rules.push({ base: '', above: from(top), ig: ignore().add(exclude) });
  if (top !== start) {
    const folders: string[] = [];
    for (let dir = dirname(start); ; dir = dirname(dir)) {
      folders.unshift(dir);
      if (dir === top) break;
    }
    for (const dir of folders) {
      const own = await readGitignore(dir);
      if (own !== null) rules.push({ base: '', above: from(dir), ig: ignore().add(own) });
    }
  }
  if (rules.length === 0) return [];
  // The root's path from each folder above, tested as a folder, as the walk tests its folders.
  let rootIgnored = false;
  for (const { above, ig } of rules) {
    if (above === '' || above === undefined) continue;
    const result = ig.test(above);
    if (result.ignored) rootIgnored = true;
    else if (result.unignored) rootIgnored = false;
  }
  return rootIgnored ? [] : rules;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
