import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBenchCluster, type BenchCluster } from './cluster.js';
import { distribution, SMALL, target, writeResult, type Distribution, type Target } from './harness.js';
import { startServer } from './jobs.js';

/**
 * The command line's cold start: the wall time of whole `canon` processes, as a person at a
 * terminal waits for them — `canon --help`, and `canon memories S` against a running
 * `canon start` (found through its CANON_HOME, so the command talks HTTP and never opens the
 * database). Plain `node -e 0` is measured beside them: no command can start faster than that.
 * The CLI runs the built code: `npm run bench:cli` builds first.
 */
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BIN = path.join(ROOT, 'packages/cli/bin/canon.js');
const RUNS = SMALL ? 5 : 11;
const SUBJECT = 'service:cli-bench';

export interface CliResult {
  node: string;
  /** 1-minute load average at the start: on a shared machine every process starts slower. */
  load_average: number;
  runs: number;
  node_baseline: Distribution;
  help: Distribution;
  memories_http: Distribution;
  targets: Target[];
}

/** Wall milliseconds of each of `runs` processes, after one unmeasured run that warms the file cache. */
function timeProcess(args: string[], env: NodeJS.ProcessEnv, runs: number): number[] {
  const once = () => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.split('\n')[0]}`);
    return { ms, stdout: r.stdout };
  };
  once();
  return Array.from({ length: runs }, () => once().ms);
}

export async function benchCli(cluster: BenchCluster, log: (msg: string) => void = console.error): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, CANON_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'canon-bench-cli-')) };
  delete env['CANON_URL'];
  delete env['CANON_API_KEY'];
  delete env['DATABASE_URL'];
  const load = os.loadavg()[0]!;
  log(`cli: canon --help, ${RUNS} runs`);
  const baseline = timeProcess(['-e', '0'], env, RUNS);
  const help = timeProcess([BIN, '--help'], env, RUNS);
  fs.rmSync(env['CANON_HOME']!, { recursive: true, force: true });

  const dbName = 'canon_bench_cli';
  const server = await startServer(await cluster.createDatabase(dbName));
  try {
    const res = await fetch(`${server.url}/v1/episodes?compile=wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ idempotency_key: 'cli-bench-1', subject: SUBJECT, body: { text: 'The staging deploy runs on Tuesday.' } }),
    });
    if (!res.ok) throw new Error(`POST /v1/episodes answered ${res.status}`);
    log(`cli: canon memories ${SUBJECT} against the running server, ${RUNS} runs`);
    const serverEnv = { ...env, CANON_HOME: server.home };
    const out = spawnSync(process.execPath, [BIN, 'memories', SUBJECT, '--json'], { cwd: ROOT, env: serverEnv, encoding: 'utf8' });
    if (out.status !== 0 || !out.stdout.includes('"memories"')) throw new Error(`canon memories failed: ${out.stderr || out.stdout}`);
    const memories = timeProcess([BIN, 'memories', SUBJECT], serverEnv, RUNS);
    const result = { help: distribution(help), memories_http: distribution(memories) };
    return {
      node: process.version,
      load_average: Math.round(load * 100) / 100,
      runs: RUNS,
      node_baseline: distribution(baseline),
      ...result,
      targets: [
        target('canon --help, median', Math.round(result.help.median_ms) / 1000, 0.3, 'max', 's'),
        target('canon memories S against a running server, median', Math.round(result.memories_http.median_ms) / 1000, 0.5, 'max', 's'),
      ],
    };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => (server.child.exitCode !== null ? r(null) : server.child.once('exit', r)));
    fs.rmSync(server.home, { recursive: true, force: true });
    await cluster.dropDatabase(dbName);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cluster = await startBenchCluster();
  try {
    const result = await benchCli(cluster);
    writeResult('cli', result);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await cluster.stop();
  }
  process.exit(0);
}
