import { Command, Option } from 'commander';
import { ROLES, type Role } from '@canon/core';
import { exitCodeOf } from './exit-code.js';
import { loadConfig } from '@canon/runtime';
import { start } from './commands/start.js';
import { keysCreate, keysList, keysRevoke } from './commands/keys.js';
import { ingestFile } from './commands/ingest.js';

function run<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      console.error(`canon: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      process.exit(exitCodeOf(err));
    }
  };
}

const program = new Command('canon').description('Canon compiles agent memory.').showHelpAfterError();
const config = () => loadConfig();

program
  .command('start')
  .description('run Canon: database, migrations, queue and the HTTP API')
  .action(run(async () => start(config())));

const keys = program.command('keys').description('API keys (each names a workspace, a role and optionally a user)');
keys
  .command('create')
  .requiredOption('--workspace <id>', 'workspace id (created if new)')
  .addOption(new Option('--role <role>', 'role').choices(ROLES).makeOptionMandatory())
  .option('--user <user>', 'the user the key speaks for (needed for personal memories)')
  .option('--label <label>', 'a note to tell keys apart')
  .option('--json', 'print JSON')
  .action(run(async (opts: { workspace: string; role: Role; user?: string; label?: string; json?: boolean }) => keysCreate(config(), opts)));
keys
  .command('list')
  .option('--workspace <id>', 'only this workspace')
  .option('--json', 'print JSON')
  .action(run(async (opts: { workspace?: string; json?: boolean }) => keysList(config(), opts)));
keys
  .command('revoke <id>')
  .action(run(async (id: string) => keysRevoke(config(), id)));

program
  .command('ingest <file>')
  .description('append the episodes of a JSONL file (one episode per line)')
  .option('--batch <n>', 'episodes per request', (v) => Number(v), 1000)
  .option('--json', 'print the summary as JSON')
  .action(run(async (file: string, opts: { batch: number; json?: boolean }) => ingestFile(config(), file, opts)));

await program.parseAsync(process.argv);
