import cliProgress from 'cli-progress';
import { CanonError, EpisodeInput, LIMITS, ValidationError, type ItemIssue } from '@canon/core';
import type { Config } from '@canon/runtime';
import { openPort } from '../port.js';
import { fileLines, requireFile } from '../file-lines.js';

export interface IngestOptions {
  batch: number;
  json?: boolean;
}

/**
 * `canon ingest FILE.jsonl`: validates the whole file first (so a bad line 90,000 does not
 * leave 89 batches stored and the rest not), then posts it in batches.
 */
export async function ingestFile(config: Config, file: string, opts: IngestOptions): Promise<void> {
  if (!Number.isInteger(opts.batch) || opts.batch < 1 || opts.batch > LIMITS.batchSize) {
    throw new ValidationError(`--batch must be between 1 and ${LIMITS.batchSize}`);
  }
  const { items, lines } = await readJsonl(file);
  const port = await openPort(config);
  const bar =
    process.stderr.isTTY && !opts.json
      ? new cliProgress.SingleBar({ format: 'ingest [{bar}] {value}/{total} episodes | {eta_formatted} left', stream: process.stderr }, cliProgress.Presets.shades_classic)
      : null;
  const summary: Summary = { created: 0, duplicates: 0, rejected: 0, erased: 0, redacted: 0, refused: 0, batches: 0 };
  bar?.start(items.length, 0);
  try {
    for (let i = 0; i < items.length; i += opts.batch) {
      const batch = items.slice(i, i + opts.batch);
      try {
        const result = await port.ingest(batch);
        summary.created += result.created;
        summary.duplicates += result.duplicates;
        // Keys erased earlier: nothing written for them, and the user is told so.
        summary.erased += result.erased;
        // Refused items (secrets, in a workspace that refuses them) are rejected; the rest stands.
        summary.redacted += result.redacted ?? 0;
        summary.refused += result.refused ?? 0;
        summary.rejected += result.refused ?? 0;
        summary.batches += 1;
      } catch (err) {
        summary.rejected += batch.length;
        // The batches after a rejected one are not sent: the file is posted in order, and what
        // follows may depend on what was refused. The summary says how many and from where, so
        // the counts are not read as the whole file's.
        const rest = items.length - (i + batch.length);
        if (rest > 0) Object.assign(summary, { not_sent: rest, not_sent_from_line: lines[i + batch.length]! });
        bar?.stop();
        report(summary, opts);
        // The line named, the kind kept: a key that may not write exits 3 (not authorized), as
        // every command's does, not 2.
        const fix = rest > 0 ? `; it and the ${rest} episode${rest === 1 ? '' : 's'} after it were not stored — fix it and run again (what was stored comes back as duplicates)` : '';
        const message = `batch starting at line ${lines[i]!} rejected: ${(err as Error).message}${fix}`;
        throw err instanceof CanonError ? new CanonError(err.type, message, err.details, { cause: err }) : new ValidationError(message);
      }
      bar?.update(Math.min(i + opts.batch, items.length));
    }
  } finally {
    bar?.stop();
    await port.close();
  }
  report(summary, opts);
}

interface Summary {
  created: number;
  duplicates: number;
  rejected: number;
  erased: number;
  redacted: number;
  refused: number;
  batches: number;
  /** After a rejected batch: the episodes of the file not posted, and the line they start at. */
  not_sent?: number;
  not_sent_from_line?: number;
}

function report(summary: Summary, opts: IngestOptions): void {
  if (opts.json) console.log(JSON.stringify(summary));
  else {
    const secrets =
      (summary.redacted > 0 ? `; secrets redacted in ${summary.redacted}` : '') + (summary.refused > 0 ? `; ${summary.refused} refused for holding a secret` : '');
    const erased = summary.erased > 0 ? `; ${summary.erased} erased earlier, not written` : '';
    const unsent = summary.not_sent ? `, not sent ${summary.not_sent} (line ${summary.not_sent_from_line} on)` : '';
    console.log(`created ${summary.created}, duplicates ${summary.duplicates}, rejected ${summary.rejected}${unsent}${erased}${secrets}`);
  }
}

/** The file's episodes, and the line each is on (blank lines are skipped). */
async function readJsonl(file: string): Promise<{ items: unknown[]; lines: number[] }> {
  requireFile(file);
  const lines = fileLines(file);
  const items: unknown[] = [];
  const at: number[] = [];
  const issues: ItemIssue[] = [];
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      issues.push({ index: n, path: '', message: `not JSON: ${(err as Error).message}` });
      continue;
    }
    const parsed = EpisodeInput.safeParse(value);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      issues.push({ index: n, path: first.path.join('.'), message: first.message });
      continue;
    }
    items.push(value);
    at.push(n);
  }
  if (issues.length > 0) {
    const first = issues[0]!;
    throw new ValidationError(
      `${file}:${first.index}: ${first.path ? `${first.path}: ` : ''}${first.message}` +
        (issues.length > 1 ? ` (and ${issues.length - 1} more invalid lines); nothing was posted` : '; nothing was posted'),
      issues,
    );
  }
  if (items.length === 0) throw new ValidationError(`${file} holds no episodes`);
  return { items, lines: at };
}
