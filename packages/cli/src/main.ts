import { Command, InvalidArgumentError, Option } from 'commander';
import { ROLES, type Role } from '@canon/core';
import { exitCodeOf } from './exit-code.js';
import { loadConfig } from '@canon/runtime';
import { handleInterrupts } from './interrupts.js';
import { start } from './commands/start.js';
import { keysCreate, keysList, keysRevoke } from './commands/keys.js';
import { ingestFile } from './commands/ingest.js';
import { registerCompileCommands } from './commands/compile.js';
import { registerOperationCommands } from './commands/operations.js';
import { registerRecallCommands } from './commands/recall.js';
import { registerSearchCommand } from './commands/search.js';
import { registerContextCommand } from './commands/context.js';
import { registerLinkCommand } from './commands/link.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerInspectCommand } from './commands/inspect.js';
import { registerSecretsCommands } from './commands/secrets.js';
import { gitTarget, githubTarget, syncCommand, workspaceTarget, type ConnectorCommandOptions } from './commands/sync.js';
import { connectorsAdd, connectorsList, connectorsRemove, connectorsReset, connectorsRun, type AddOptions } from './commands/connectors.js';

const interrupted = handleInterrupts();

function run<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      // Interrupted: the database going away under the command is expected, not an error to print.
      if (interrupted()) return;
      console.error(`canon: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      process.exit(exitCodeOf(err));
    }
    // Open handles (a pool's idle timers, a progress bar) must not keep a finished command alive.
    process.exit(process.exitCode ?? 0);
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
  .option(
    '--source <source>',
    'a connector source the key may write (github, git, workspace, …); repeat for several. Connector sources are reserved for keys bound to them',
    (value: string, previous: string[] = []) => [...previous, value],
  )
  .option('--json', 'print JSON')
  .action(run(async (opts: { workspace: string; role: Role; user?: string; label?: string; source?: string[]; json?: boolean }) => keysCreate(config(), opts)));
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

const positiveInteger = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer');
  return n;
};
type GithubFlags = { repo: string; token?: string; baseUrl?: string };
type WorkspaceFlags = { id?: string; maxFileBytes?: number; secretFile?: string[]; includeSecretFiles?: boolean; include?: string[]; exclude?: string[] };
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
type GitFlags = { id?: string };

const sync = program.command('sync').description('run a connector once: what is new at the source becomes episodes');
const syncFlags = (cmd: Command) =>
  cmd
    .option('--workspace <id>', 'the workspace the episodes go to', 'default')
    .option('--dry-run', 'read the source and count; write nothing, not even the cursor')
    .option('--json', 'print the summary as JSON');
syncFlags(
  sync
    .command('github')
    .description('issues and pull requests of a GitHub repository')
    .requiredOption('--repo <owner/name>', 'the repository')
    .option('--token <token>', 'a GitHub token (default: GITHUB_TOKEN)')
    .option('--base-url <url>', 'the REST API root (GitHub Enterprise: https://host/api/v3)'),
).action(run(async (opts: GithubFlags & ConnectorCommandOptions) => syncCommand(config(), githubTarget(opts), opts)));
syncFlags(
  sync
    .command('workspace <path>')
    .description('the text files of a folder, honouring .gitignore')
    .option('--id <id>', 'the root id in subjects and keys (default: the folder name)')
    .option('--max-file-bytes <n>', 'larger files are skipped', positiveInteger)
    .option('--secret-file <pattern>', 'also skip files matching this gitignore pattern as secret files; !pattern reads a default back (repeatable)', collect)
    .option('--include-secret-files', 'read .env, keys and credential files too (recognised secrets are still redacted)')
    .option('--include <pattern>', 'read only files matching this gitignore pattern, e.g. docs/** (repeatable)', collect)
    .option('--exclude <pattern>', 'skip files matching this gitignore pattern, on top of .gitignore (repeatable)', collect),
).action(run(async (path: string, opts: WorkspaceFlags & ConnectorCommandOptions) => syncCommand(config(), workspaceTarget(path, opts), opts)));
syncFlags(
  sync
    .command('git <path>')
    .description('first-parent commits and their package.json dependency changes')
    .option('--id <id>', "the repository id (default: origin's owner/name, else the folder name)"),
).action(run(async (path: string, opts: GitFlags & ConnectorCommandOptions) => syncCommand(config(), gitTarget(path, opts), opts)));

const connectors = program.command('connectors').description('connector instances: registered, run on demand or on a schedule');
const add = connectors.command('add').description('register a connector instance (with --every, a pg-boss schedule)');
const addFlags = (cmd: Command) =>
  cmd
    .option('--workspace <id>', 'the workspace the episodes go to', 'default')
    .option('--instance <id>', 'the instance id (default: github:<owner>/<repo>, workspace:<root id>, git:<repo id>)')
    .option('--every <cron>', "a cron expression, e.g. '0 * * * *' (runs need a running `canon start`)")
    .option('--tz <zone>', 'the time zone of --every (default: UTC)')
    .option('--json', 'print JSON');
addFlags(
  add
    .command('github')
    .requiredOption('--repo <owner/name>', 'the repository (the token comes from GITHUB_TOKEN when it runs)')
    .option('--base-url <url>', 'the REST API root'),
).action(run(async (opts: Omit<GithubFlags, 'token'> & AddOptions) => connectorsAdd(config(), githubTarget(opts), opts)));
addFlags(
  add
    .command('workspace <path>')
    .option('--id <id>', 'the root id (default: the folder name)')
    .option('--max-file-bytes <n>', 'larger files are skipped', positiveInteger)
    .option('--secret-file <pattern>', 'also skip files matching this gitignore pattern as secret files; !pattern reads a default back (repeatable)', collect)
    .option('--include-secret-files', 'read .env, keys and credential files too (recognised secrets are still redacted)')
    .option('--include <pattern>', 'read only files matching this gitignore pattern, e.g. docs/** (repeatable)', collect)
    .option('--exclude <pattern>', 'skip files matching this gitignore pattern, on top of .gitignore (repeatable)', collect),
).action(run(async (path: string, opts: WorkspaceFlags & AddOptions) => connectorsAdd(config(), workspaceTarget(path, opts), opts)));
addFlags(add.command('git <path>').option('--id <id>', 'the repository id')).action(
  run(async (path: string, opts: GitFlags & AddOptions) => connectorsAdd(config(), gitTarget(path, opts), opts)),
);
connectors
  .command('list')
  .option('--workspace <id>', 'only this workspace')
  .option('--json', 'print JSON')
  .action(run(async (opts: { workspace?: string; json?: boolean }) => connectorsList(config(), opts)));
connectors
  .command('run <id>')
  .description('run an instance now, in this process')
  .option('--workspace <id>', 'the workspace of the instance', 'default')
  .option('--dry-run', 'read the source and count; write nothing')
  .option('--json', 'print the summary as JSON')
  .action(run(async (id: string, opts: { workspace: string; dryRun?: boolean; json?: boolean }) => connectorsRun(config(), id, opts)));
connectors
  .command('remove <id>')
  .description('remove an instance and its schedule (its cursor is kept)')
  .option('--workspace <id>', 'the workspace of the instance', 'default')
  .option('--json', 'print JSON')
  .action(run(async (id: string, opts: { workspace: string; json?: boolean }) => connectorsRemove(config(), id, opts)));
connectors
  .command('reset <id>')
  .description("forget an instance's cursor: its next sync reads the source from the beginning (after a rewritten git history)")
  .option('--workspace <id>', 'the workspace of the instance', 'default')
  .action(run(async (id: string, opts: { workspace: string }) => connectorsReset(config(), id, opts)));

registerCompileCommands(program, run, config);
registerOperationCommands(program, run, config);
registerRecallCommands(program, run, config);
registerLinkCommand(program, run, config);
registerSearchCommand(program, run, config);
registerContextCommand(program, run, config);
registerMcpCommand(program, run, config);
registerInspectCommand(program, run, config);
registerSecretsCommands(program, run, config);

await program.parseAsync(process.argv);
