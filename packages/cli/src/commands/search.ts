import { InvalidArgumentError, type Command } from 'commander';
import type { Config, SearchResult } from '@canon/runtime';
import type { Run } from '../lazy-port.js';
import { openPort } from '../lazy-port.js';
import { qualifierText } from '../qualifiers.js';


interface SearchOptions {
  subject?: string;
  limit?: number;
  includeHistory?: boolean;
  json?: boolean;
}

const limit = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('an integer from 1 to 100');
  return n;
};

function label(r: SearchResult): string {
  return `${r.predicate}${qualifierText(r.qualifiers)}`;
}

/**
 * `disputed` only for a side of an open disagreement; a current value that has a possible
 * contradiction (a candidate with another value) or an expired check is in force all the same,
 * and is shown so — to verify.
 */
function status(r: SearchResult): string {
  if (!r.current) return r.value_status;
  if (r.memory_status === 'conflicted') return 'disputed';
  return r.needs_verification ? 'to verify' : 'current';
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function registerSearchCommand(program: Command, run: Run, config: () => Config): void {
  program
    .command('search <query>')
    .description('lexical search over current memories (full text, then near matches for typos)')
    .option('--subject <subject>', 'only this subject')
    .option('--limit <n>', 'at most this many values (1-100, default 20)', limit)
    .option('--include-history', 'superseded and overruled values too, marked as such')
    .option('--json', 'print JSON')
    .action(
      run(async (query: string, opts: SearchOptions) => {
        const port = await openPort(config());
        try {
          const out = await port.search({ q: query, subject: opts.subject, limit: opts.limit, include_history: Boolean(opts.includeHistory) });
          if (opts.json) return console.log(JSON.stringify(out));
          if (out.results.length === 0) return console.log('no matches');
          const rows = out.results.map((r) => [r.subject, label(r), JSON.stringify(r.value), status(r), r.match, r.valid_from, r.memory_id]);
          console.log(table([['SUBJECT', 'MEMORY', 'VALUE', 'STATUS', 'MATCH', 'SINCE', 'ID'], ...rows]));
        } finally {
          await port.close();
        }
      }),
    );
}
