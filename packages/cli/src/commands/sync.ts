import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import cliProgress from 'cli-progress';
import { NotFoundError } from '@canon/core';
import { runConnectorTo, syncConnector, type CanonPort, type Config, type Runtime, type SyncConnectorResult } from '@canon/runtime';
import type { RunProgress } from '@canon/connector-kit';
import { httpDestination } from '../http-sync.js';
import { localRuntime, serverPort } from '../port.js';

/** The options every connector command shares. */
export interface ConnectorCommandOptions {
  workspace: string;
  dryRun?: boolean;
  json?: boolean;
}

/** What `canon sync <connector>` and `canon connectors add <connector>` parse from their flags. */
export interface ConnectorTarget {
  connector: 'git' | 'github' | 'workspace';
  config: Record<string, unknown>;
}

export function githubTarget(opts: { repo: string; token?: string; baseUrl?: string }): ConnectorTarget {
  return {
    connector: 'github',
    config: { repo: opts.repo, ...(opts.token ? { token: opts.token } : {}), ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}) },
  };
}

/**
 * A folder this process will read, or a one-line refusal (exit 2) before anything opens a
 * database: a sync reads it here (a connector registered with `connectors add` may name a path
 * on the server's machine, so that one is not checked).
 */
export function requireFolder(path: string, git = false): void {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(path);
  } catch {
    throw new NotFoundError(`no folder ${path}`);
  }
  if (!stat.isDirectory()) throw new NotFoundError(`not a folder: ${path}`);
  if (!git) return;
  const ask = (...args: string[]) => execFileSync('git', ['-C', path, ...args], { stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
  try {
    ask('rev-parse', '--git-dir');
  } catch {
    throw new NotFoundError(`not a git repository: ${path}`);
  }
  // The history is read from a work tree's HEAD, of the whole repository: name that, not a part.
  if (ask('rev-parse', '--is-bare-repository') === 'true') throw new NotFoundError(`${path} is a bare repository: sync a clone of it`);
  const top = ask('rev-parse', '--show-toplevel');
  if (fs.realpathSync(top) !== fs.realpathSync(path)) throw new NotFoundError(`${path} is inside the repository at ${top}: sync that`);
  try {
    ask('rev-parse', '--verify', '--quiet', 'HEAD');
  } catch {
    throw new NotFoundError(`${path} has no commits yet`);
  }
}

export function workspaceTarget(
  path: string,
  opts: { id?: string; maxFileBytes?: number; secretFile?: string[]; includeSecretFiles?: boolean; include?: string[]; exclude?: string[] },
): ConnectorTarget {
  return {
    connector: 'workspace',
    config: {
      path,
      ...(opts.id ? { id: opts.id } : {}),
      ...(opts.maxFileBytes !== undefined ? { maxFileBytes: opts.maxFileBytes } : {}),
      ...(opts.secretFile?.length ? { secretFiles: opts.secretFile } : {}),
      ...(opts.includeSecretFiles ? { includeSecretFiles: true } : {}),
      ...(opts.include?.length ? { include: opts.include } : {}),
      ...(opts.exclude?.length ? { ignore: opts.exclude } : {}),
    },
  };
}

export function gitTarget(path: string, opts: { id?: string }): ConnectorTarget {
  return { connector: 'git', config: { path, ...(opts.id ? { id: opts.id } : {}) } };
}

/**
 * `canon sync <connector> …`: one run in this process, into the database of CANON_HOME (or
 * DATABASE_URL), with the instance's cursor. Ctrl-C stops after the batch in flight; what was
 * committed stays, and the next sync resumes from there. Each batch queues the compile of what
 * it wrote (for a running server's workers); the subjects written are then compiled here, so
 * memory is current when the command returns.
 *
 * With CANON_URL, the same run feeds that server: it keeps the cursor, appends each batch as
 * the key's principal (in the key's workspace) and compiles what was written when asked.
 */
export function syncCommand(config: Config, target: ConnectorTarget, opts: ConnectorCommandOptions): Promise<void> {
  const label = `sync ${target.connector}`;
  // Only a server named in CANON_URL: with none, the run writes to this CANON_HOME's database.
  const server = serverPort(config, process.env, { named: true });
  // `default` is also the flag's default: only another name is taken as asked for.
  if (server) return runToServer(server, label, target, { ...opts, serverWorkspace: opts.workspace === 'default' ? undefined : opts.workspace });
  return runWithProgress(config, label, opts, (runtime, run) =>
    syncConnector(runtime, { workspace: opts.workspace, connector: target.connector, config: target.config, ...run, compile: 'wait' }),
  );
}

/**
 * One connector run into the server behind `server`: it appends each batch as the key's
 * principal and keeps the instance's cursor. `serverWorkspace`, when given, must be the key's.
 */
export function runToServer(
  server: CanonPort,
  label: string,
  target: ConnectorTarget,
  opts: { dryRun?: boolean; json?: boolean; instanceId?: string; serverWorkspace: string | undefined },
): Promise<void> {
  const destination = httpDestination(server, opts.serverWorkspace === undefined ? {} : { workspace: opts.serverWorkspace });
  return withProgress(label, opts, (run) =>
    runConnectorTo(destination, { connector: target.connector, config: target.config, ...(opts.instanceId ? { instanceId: opts.instanceId } : {}), ...run, compile: 'wait' }),
  );
}

type RunControls = { dryRun: boolean; onProgress: (p: RunProgress) => void; signal: AbortSignal };

/**
 * One connector run in this process with a progress bar, Ctrl-C stopping after the batch in
 * flight, and the summary printed: what `canon sync` and `canon connectors run` share.
 */
export async function runWithProgress(
  config: Config,
  label: string,
  opts: { dryRun?: boolean; json?: boolean },
  run: (runtime: Runtime, options: RunControls) => Promise<SyncConnectorResult>,
): Promise<void> {
  // The queue, without workers: ingest enqueues the compile of each batch in its transaction
  // (design §6), and this process, which exits when the run ends, works no job.
  const runtime = await localRuntime(config, { queue: !opts.dryRun, workers: false, schedules: false });
  try {
    await withProgress(label, opts, (controls) => run(runtime, controls));
  } finally {
    await runtime.close();
  }
}

/** A run with the progress bar, Ctrl-C and the summary, wherever it writes. */
async function withProgress(
  label: string,
  opts: { dryRun?: boolean; json?: boolean },
  run: (options: RunControls) => Promise<SyncConnectorResult>,
): Promise<void> {
  const progress = progressReporter(label, opts);
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  try {
    const summary = await run({ dryRun: opts.dryRun ?? false, onProgress: progress.update, signal: controller.signal });
    progress.stop();
    printSummary(summary, opts);
  } catch (err) {
    // Ctrl-C: the batch in flight finished or rolled back, what was committed stays, and the next
    // sync resumes from there. An interrupted command exits 130, as every other one does.
    if (!controller.signal.aborted) throw err;
    progress.stop();
    process.exitCode = 130;
  } finally {
    progress.stop();
    process.off('SIGINT', onSigint);
  }
}

/** A progress bar on stderr when it is a terminal (and the output is not JSON); else nothing. */
export function progressReporter(label: string, opts: { json?: boolean }) {
  const tty = process.stderr.isTTY && !opts.json;
  let bar: cliProgress.SingleBar | null = null;
  return {
    update(p: RunProgress) {
      if (!tty) return;
      // Sources that cannot count ahead (GitHub) get a bar whose end follows what was read.
      const total = p.total ?? p.fetched;
      const payload = { created: p.created, duplicates: p.duplicates };
      if (!bar) {
        bar = new cliProgress.SingleBar(
          { format: `${label} [{bar}] {value}/{total} items | created {created}, duplicates {duplicates}`, stream: process.stderr },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, p.fetched, payload);
        return;
      }
      bar.setTotal(total);
      bar.update(p.fetched, payload);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}

export function printSummary(summary: SyncConnectorResult, opts: { json?: boolean }): void {
  if (opts.json) {
    console.log(JSON.stringify(summary));
  } else {
    const skipped = Object.values(summary.skipped).reduce((a, b) => a + b, 0);
    const reasons = Object.entries(summary.skipped)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    console.log(
      `${summary.instance_id}${summary.dry_run ? ' (dry run: nothing written)' : ''}: fetched ${summary.fetched}, ` +
        `${summary.dry_run ? `would submit ${summary.submitted}` : `created ${summary.created}, duplicates ${summary.duplicates}`}, ` +
        `retractions ${summary.retractions}, skipped ${skipped}${reasons ? ` (${reasons})` : ''}` +
        (summary.statements['ambiguous'] ? `, ${summary.statements['ambiguous']} ambiguous statements left out` : '') +
        (summary.statements['unparsed'] ? `, ${summary.statements['unparsed']} settings files not parsed (kept as text)` : '') +
        (summary.erased > 0 ? `, erased ${summary.erased}` : '') +
        (summary.redacted > 0 ? `, secrets redacted in ${summary.redacted}` : '') +
        (summary.refused > 0 ? `, refused ${summary.refused} (secrets)` : ''),
    );
  }
  if (!opts.json && summary.compiled) {
    const c = summary.compiled;
    const subjects = `${c.subjects} subject${c.subjects === 1 ? '' : 's'}`;
    const failed = c.failed > 0 ? `, failed ${c.failed} (see \`canon compile\`)` : '';
    // Zeros here would read as "the run changed no memory" when a server's workers compiled the
    // new episodes before this compile asked: say so instead.
    if (c.episodes_processed === 0 && summary.created > 0) {
      console.log(`compiled ${subjects}: nothing was left to compile (the new episodes were compiled as they arrived)${failed}`);
    } else {
      // Some compiled as they arrived, the rest here: these counts are of the rest only, and
      // "memories created 0" over a sync that created dozens read as if it made none.
      const earlier =
        c.episodes_processed < summary.created
          ? ` (of the last ${c.episodes_processed} new episode${c.episodes_processed === 1 ? '' : 's'}: the other ${summary.created - c.episodes_processed} were compiled as they arrived)`
          : '';
      console.log(
        `compiled ${subjects}: memories created ${c.memories_created}, updated ${c.memories_updated}, ` +
          `ended ${c.tombstoned}, conflicts opened ${c.conflicts_opened}${earlier}${failed}`,
      );
    }
  }
  for (const c of summary.key_conflicts) {
    console.error(`canon: key conflict: ${c.idempotency_key} is stored as episode ${c.stored_episode_id || '(in this batch)'} with other content; item skipped`);
  }
  // A key conflict means the recipe or the source changed: worth a non-zero exit for scripts.
  if (summary.key_conflicts.length > 0) process.exitCode = 2;
}
