import v8 from 'node:v8';

/**
 * Called before a command's first request to a server. On Node 20 (V8 11), the first `fetch`
 * compiles undici's HTTP parser, a WebAssembly module, twice: at once with the baseline compiler,
 * then with the optimizing one on background threads — and a process that exits waits for that
 * second compile. That was ~125 ms of every command that talks to a server (a fetch and an exit:
 * 325 → 200 ms; `canon memories S` against a running server: ~500 → ~360 ms). A command reads a
 * few answers; the baseline code parses them as well. V8 12 (Node 22 and later) does not hold
 * the exit for it, and there the flag only slows: it is left alone.
 */
export function baselineWasmOnly(): void {
  if (Number(process.versions.v8.split('.')[0]) < 12) v8.setFlagsFromString('--liftoff-only');
}
