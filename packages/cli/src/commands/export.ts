import fs from 'node:fs';
import { once } from 'node:events';
import cliProgress from 'cli-progress';
import { ExportReader, ValidationError, type ExportManifest } from '@canon/core';
import type { Config, ImportResult } from '@canon/runtime';
import { openPort } from '../port.js';
import { fileLines, requireFile } from '../file-lines.js';

export interface ExportOptions {
  subject?: string;
  all?: boolean;
  output?: string;
}

const bar = (format: string) =>
  process.stderr.isTTY ? new cliProgress.SingleBar({ format, stream: process.stderr }, cliProgress.Presets.shades_classic) : null;

/**
 * `canon export [--subject S | --all] > log.jsonl`: the workspace's log as NDJSON on stdout (or
 * --output), written as it is read, with a progress bar on stderr.
 */
export async function exportCommand(config: Config, opts: ExportOptions): Promise<void> {
  if (opts.subject !== undefined && opts.all) throw new ValidationError('give --subject or --all, not both');
  // Opened before anything is asked of the server: a path it cannot write is one line, not a stream's error event.
  const out = opts.output ? fs.createWriteStream('', { fd: openForWriting(opts.output) }) : process.stdout;
  const client = await openPort(config);
  const progress = bar('export [{bar}] {value}/{total} episodes | {eta_formatted} left');
  try {
    const opened = await client.exportLog(opts.subject !== undefined ? { subject: opts.subject } : {});
    progress?.start(opened.episodes, 0);
    let episodes = 0;
    let complete = false;
    for await (const line of opened.lines) {
      if (!out.write(`${line}\n`)) await once(out, 'drain');
      if (line.startsWith('{"type":"episode"')) progress?.update(++episodes);
      else if (line.startsWith('{"type":"manifest"')) complete = true;
    }
    // A server that stopped mid-stream leaves no manifest: say so rather than leave a short file unremarked.
    if (!complete) throw new Error('the export ended before its manifest; the output is incomplete');
  } finally {
    progress?.stop();
    if (out !== process.stdout) await new Promise<void>((resolve) => (out as fs.WriteStream).end(resolve));
    await client.close();
  }
}

function openForWriting(file: string): number {
  try {
    return fs.openSync(file, 'w');
  } catch (err) {
    throw new ValidationError(`cannot write the export to ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

export interface ImportOptions {
  keepPolicies?: boolean;
  json?: boolean;
}

/**
 * `canon import FILE`: checks the whole file first — every line's hash, the order, the manifest's
 * counts and digest — so a tampered or truncated file is refused by its line with nothing
 * written; then imports it, in process or through the server, and reports each subject whose
 * state differs from the manifest's (exit 1).
 */
export async function importCommand(config: Config, file: string, opts: ImportOptions): Promise<void> {
  requireFile(file);
  const manifest = await checkFile(file);
  const client = await openPort(config);
  const remote = client.mode === 'http';
  const progress = opts.json ? null : remote ? bar('import [{bar}] {percentage}% sent | {eta_formatted} left') : bar('import [{bar}] {value}/{total} episodes | {eta_formatted} left');
  let result: ImportResult;
  try {
    progress?.start(remote ? fs.statSync(file).size : manifest.counts.episodes, 0);
    result = await client.importLog(fileLines(file), {
      ...(opts.keepPolicies ? { keepPolicies: true } : {}),
      onProgress: (p) => progress?.update((remote ? p.bytes : p.episodes) ?? 0),
    });
  } finally {
    progress?.stop();
    await client.close();
  }
  if (opts.json) console.log(JSON.stringify(result));
  else {
    console.log(
      `imported ${result.episodes} episodes from workspace ${result.from_workspace} into ${result.workspace}: created ${result.created}, duplicates ${result.duplicates}, erased ${result.erased}, refused ${result.refused}, redacted ${result.redacted}; ` +
        `tombstones ${result.tombstones.added} new of ${result.tombstones.read}; policies ${result.policies}`,
    );
    const differing = result.subjects.filter((s) => !s.ok);
    console.log(`${result.subjects.length - differing.length} of ${result.subjects.length} subjects match the manifest's state_hash`);
    for (const s of differing) console.log(`  ${s.subject}: ${s.reason ?? 'differs'}`);
  }
  if (!result.ok) process.exitCode = 1;
}

async function checkFile(file: string): Promise<ExportManifest> {
  const reader = new ExportReader();
  for await (const line of fileLines(file)) {
    try {
      reader.read(line);
    } catch (err) {
      throw prefixed(file, err);
    }
  }
  try {
    return reader.finish();
  } catch (err) {
    throw prefixed(file, err);
  }
}

function prefixed(file: string, err: unknown): unknown {
  if (err instanceof Error) err.message = `${file}: ${err.message}; nothing was imported`;
  return err;
}
