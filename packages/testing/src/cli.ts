import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const BIN = path.resolve('packages/cli/bin/canon.js');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `canon` binary with this environment; never throws on a non-zero exit. */
export async function runCanon(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliOutcome> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
