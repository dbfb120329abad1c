import type { ChildProcess } from 'node:child_process';

/** Whether a process with this id still runs (EPERM: it does, under another user, as postgres). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILLs a child that is still running and waits until it has exited. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export interface ServingProcess {
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Collects the output of a `canon start` child and resolves once it says where it serves;
 * rejects when it exits first or stays silent for `timeoutMs`.
 */
export async function untilServing(child: ChildProcess, timeoutMs = 90_000): Promise<ServingProcess> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`canon start did not serve in time:\n${stdout}\n${stderr}`)), timeoutMs);
    child.stdout!.on('data', () => {
      const serving = /Canon is serving (http:\/\/[\w.:-]+)/.exec(stdout);
      if (serving) {
        clearTimeout(timer);
        resolve(serving[1]!);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`canon start exited with ${code} before serving:\n${stderr}`));
    });
  });
  return { url, stdout: () => stdout, stderr: () => stderr, exited };
}
