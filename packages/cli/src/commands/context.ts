import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '@canon/runtime';
import { MAX_CONTEXT_TOKENS } from '@canon/core/context-limits';
import { openPort } from '../lazy-port.js';

type Run = <A extends unknown[]>(fn: (...args: A) => Promise<void>) => (...args: A) => Promise<void>;

const maxTokens = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONTEXT_TOKENS) throw new InvalidArgumentError(`an integer from 1 to ${MAX_CONTEXT_TOKENS}`);
  return n;
};

export function registerContextCommand(program: Command, run: Run, config: () => Config): void {
  program
    .command('context <subject>')
    .description("a subject's memories for a task within a token budget: the same inputs at the same instant give the same bytes")
    .requiredOption('--task <text>', 'what the bundle is for (ranks the memories)')
    .option('--max-tokens <n>', 'the budget, estimated as ceil(characters / 4) per line', maxTokens, 2000)
    .option('--as-of <instant>', 'the memories as they held then (ISO 8601 with offset; default now)')
    .option('--json', 'print {text, tokens, memory_ids, conflicts}')
    .action(
      run(async (subject: string, opts: { task: string; maxTokens: number; asOf?: string; json?: boolean }) => {
        const port = await openPort(config());
        try {
          const bundle = await port.context({ subject, task: opts.task, max_tokens: opts.maxTokens, ...(opts.asOf ? { as_of: opts.asOf } : {}) });
          // The text as it is, byte for byte: it already ends with a newline.
          if (opts.json) console.log(JSON.stringify(bundle));
          else process.stdout.write(bundle.text);
        } finally {
          await port.close();
        }
      }),
    );
}
