import { basename } from 'node:path';
import { git } from './git-cli.js';
import { EMPTY_PACKAGE, parsePackageJson, type PackageFacts } from './package-diff.js';

export interface FirstParentCommit {
  sha: string;
  /** The first parent, or null for a root commit. */
  parent: string | null;
  /** Index on the first-parent chain, 0 = the root commit. */
  sequence: number;
  /** Committer time, ISO 8601 UTC with milliseconds. */
  committedAt: string;
  /** First line of the message. */
  message: string;
}

/** One package.json touched by a commit, before (first parent) and after. */
export interface PackageChange {
  path: string;
  before: PackageFacts;
  /** null when the new content is not valid JSON: the change is skipped and counted. */
  after: PackageFacts | null;
}

const FIELD = '\x1f';
const RECORD = '\x1e';

/** Every first-parent commit reachable from `ref`, oldest first. */
export async function firstParentCommits(dir: string, ref: string, signal?: AbortSignal): Promise<FirstParentCommit[]> {
  const format = ['%H', '%P', '%cI', '%s'].join('%x1f') + '%x1e';
  const { stdout } = await git(dir, ['log', '--first-parent', '--reverse', `--format=${format}`, ref, '--'], { signal });
  const commits: FirstParentCommit[] = [];
  for (const record of stdout.split(RECORD)) {
    const line = record.replace(/^\n/, '');
    if (line === '') continue;
    const [sha = '', parents = '', committed = '', message = ''] = line.split(FIELD);
    commits.push({
      sha,
      parent: parents.split(' ')[0] || null,
      sequence: commits.length,
      committedAt: new Date(committed).toISOString(),
      message,
    });
  }
  return commits;
}

/** The package.json files a commit changes against its first parent, with both versions. */
export async function packageChanges(dir: string, commit: FirstParentCommit, signal?: AbortSignal): Promise<PackageChange[]> {
  const range = commit.parent === null ? ['--root', commit.sha] : [commit.parent, commit.sha];
  const { stdout } = await git(
    dir,
    ['diff-tree', '--no-commit-id', '-r', '-z', '--no-renames', '--name-status', ...range, '--', ':(glob)**/package.json'],
    { signal },
  );
  // -z output: status NUL path NUL status NUL path NUL ...
  const fields = stdout.split('\0').filter((f) => f !== '');
  const changes: PackageChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i] ?? '';
    const path = fields[i + 1] ?? '';
    if (path.split('/').includes('node_modules')) continue;
    const before = status === 'A' || commit.parent === null ? EMPTY_PACKAGE : await lastParsed(dir, commit.parent, path, signal);
    const after = status === 'D' ? EMPTY_PACKAGE : parsePackageJson(await show(dir, commit.sha, path, signal));
    changes.push({ path, before, after });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The file at `sha` as the claims left it: its content there, or, when that does not parse, the
 * last version before it on the first-parent chain that did (a version that did not parse was
 * skipped, so the claims still say what that one said). Read against an empty file instead, the
 * commit after a broken one asserted what it kept and never retracted what it dropped.
 */
async function lastParsed(dir: string, sha: string, path: string, signal?: AbortSignal): Promise<PackageFacts> {
  const here = parsePackageJson(await show(dir, sha, path, signal));
  if (here) return here;
  const { stdout } = await git(dir, ['log', '--first-parent', '--format=%H', sha, '--', path], { signal });
  for (const older of stdout.split('\n').filter((line) => line !== '' && line !== sha)) {
    const text = await git(dir, ['show', `${older}:${path}`], { signal, okCodes: [0, 128] });
    // Deleted there: the claims said nothing of the file before it came back.
    if (text.code !== 0) return EMPTY_PACKAGE;
    const parsed = parsePackageJson(text.stdout);
    if (parsed) return parsed;
  }
  return EMPTY_PACKAGE;
}

async function show(dir: string, sha: string, path: string, signal?: AbortSignal): Promise<string> {
  return (await git(dir, ['show', `${sha}:${path}`], { signal })).stdout;
}

/** True when `sha` names a commit in this repository. */
export async function commitExists(dir: string, sha: string, signal?: AbortSignal): Promise<boolean> {
  return (await git(dir, ['cat-file', '-e', `${sha}^{commit}`], { signal, okCodes: [0, 1, 128] })).code === 0;
}

/**
 * The repository id: the configured one, else the `origin` remote's owner/name, else the
 * working tree's folder name.
 */
export async function resolveRepoId(dir: string, configured: string | undefined, signal?: AbortSignal): Promise<string> {
  if (configured) return configured;
  const remote = await git(dir, ['config', '--get', 'remote.origin.url'], { signal, okCodes: [0, 1] });
  const fromRemote = ownerNameFromRemote(remote.stdout.trim());
  if (fromRemote) return fromRemote;
  const top = (await git(dir, ['rev-parse', '--show-toplevel'], { signal })).stdout.trim();
  return basename(top);
}

/**
 * `git@host:owner/name.git`, `https://host/owner/name(.git)`, `ssh://git@host/owner/name` →
 * `owner/name`. A local path remote names no owner: null (the folder name is used).
 */
export function ownerNameFromRemote(url: string): string | null {
  let path: string;
  if (/^[a-z+]+:\/\//i.test(url) && !url.startsWith('file:')) path = url.replace(/^[a-z+]+:\/\/[^/]+\//i, '');
  else if (/^[^@/\s]+@[^:/\s]+:/.test(url)) path = url.replace(/^[^@/]+@[^:/]+:/, '');
  else return null;
  const parts = path.replace(/\.git$/, '').replace(/\/+$/, '').split('/').filter(Boolean);
  if (parts.length < 2) return null;
  return parts.slice(-2).join('/');
}
