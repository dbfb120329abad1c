import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Test-only (subpath `@canon/connector-git/testing`, never the main entry): a real git repository
 * in a temp folder, committed to with fixed dates and no user config.
 */
export interface TestRepo {
  dir: string;
  /** Writes (object → pretty JSON), deletes (null) and commits at `when` (author = committer date). */
  commit(when: string, files: Record<string, object | string | null>, message: string): string;
  git(args: string[], env?: Record<string, string>): string;
  remove(): void;
}

export function createTestRepo(prefix = 'canon-git-'): TestRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = (args: string[], env: Record<string, string> = {}) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...env },
    });
  git(['init', '-q', '-b', 'main']);
  return {
    dir,
    git,
    commit(when, files, message) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(dir, path);
        if (content === null) {
          rmSync(full);
          continue;
        }
        mkdirSync(join(full, '..'), { recursive: true });
        writeFileSync(full, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
      }
      git(['add', '-A']);
      git(['commit', '-q', '--allow-empty', '-m', message], { GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when });
      return git(['rev-parse', 'HEAD']).trim();
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
