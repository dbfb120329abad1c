import { execFile } from 'node:child_process';
import { ConnectorError } from '@canon/connector-kit';

export interface GitResult {
  stdout: string;
  code: number;
}

/**
 * Runs `git -C <dir> ...args` without a shell. Exit codes in `okCodes` are answers, not
 * failures (e.g. `merge-base --is-ancestor` exits 1 for "no").
 */
export function git(
  dir: string,
  args: readonly string[],
  options: { signal?: AbortSignal | undefined; okCodes?: readonly number[] } = {},
): Promise<GitResult> {
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-C', dir, ...args],
      {
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
        signal: options.signal,
        // A stable, prompt-free environment: no pager, no credential prompt, C locale messages.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ stdout, code: 0 });
        const e = error as NodeJS.ErrnoException & { code?: unknown };
        if (e.name === 'AbortError') return reject(error);
        if (e.code === 'ENOENT') {
          return reject(new ConnectorError('git_missing', 'the git command was not found: install git or put it on PATH', { cause: error }));
        }
        if (typeof e.code === 'number' && okCodes.includes(e.code)) return resolve({ stdout, code: e.code });
        const first = stderr.trim().split('\n')[0] ?? '';
        reject(new ConnectorError('git_failed', `git ${args[0] ?? ''} failed in ${dir}: ${first || error.message}`, { cause: error }));
      },
    );
  });
}
