import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { applyV8Flags } from '@canon/runtime/heap';
import type { Config } from '@canon/runtime';
import type { Role } from '@canon/core';
import { handleInterrupts } from './interrupts.js';
import { guardTerminal, visible } from './visible.js';
import { registerCompileCommands } from './commands/compile.js';
import { registerOperationCommands } from './commands/operations.js';
import { registerRecallCommands } from './commands/recall.js';
import { registerSearchCommand } from './commands/search.js';
import { registerContextCommand } from './commands/context.js';
import { registerLinkCommand } from './commands/link.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerInspectCommand } from './commands/inspect.js';
import { registerSecretsCommands } from './commands/secrets.js';
import { registerChangeCommands } from './commands/changes.js';
import type { ConnectorCommandOptions, ConnectorTarget } from './commands/sync.js';
import type { AddOptions } from './commands/connectors.js';

// This module is the command table and nothing heavier: `canon --help` loads commander and it.
// Every action imports what it runs (the runtime, the API, pg-boss, …) when it runs, and a
// command's module imports the database only when it finds no server to talk to.

// Spelled out rather than imported so that the table does not load the core; the check below
// fails the typecheck when the core's roles and this list part.
const ROLES = ['owner', 'maintainer', 'member', 'connector', 'agent', 'reader'] as const satisfies readonly Role[];
const rolesComplete: Exclude<Role, (typeof ROLES)[number]> extends never ? true : never = true;
void rolesComplete;

// Before any command loads the runtime: the server's heap settings (ops/heap.ts).
applyV8Flags();

const interrupted = handleInterrupts();

// `start` writes the server's log and `mcp` speaks JSON-RPC on stdout: every other command prints
// data from the log, shown to a terminal as text and never acted on (visible.ts).
if (!['start', 'mcp'].includes(process.argv[2] ?? '')) {
  guardTerminal(process.stdout);
  // The reader of the output went away (`canon changes | head`): stop quietly, as a program
  // killed by SIGPIPE does (128 + 13), so `set -o pipefail` still sees the output cut short.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(141);
    throw err;
  });
}

function run<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      loadConfig ??= (await import('@canon/runtime/config')).loadConfig;
      await fn(...args);
    } catch (err) {
      // Interrupted: the database going away under the command is expected, not an error to print.
      if (interrupted()) return;
      console.error(`canon: ${visible(err instanceof Error ? err.message.split('\n')[0]! : String(err))}`);
      const code = (await import('./exit-code.js')).exitCodeOf(err);
      await flushed();
      process.exit(code);
    }
    // Open handles (a pool's idle timers, a progress bar) must not keep a finished command alive.
    await flushed();
    process.exit(process.exitCode ?? 0);
  };
}

/**
 * Everything written to stdout and stderr handed to the reader. A pipe takes 64 KiB at once and
 * Node writes the rest as the reader empties it: exiting first cut a large `--json` answer short,
 * with exit 0. A write's callback runs once it, and so every write before it, is flushed.
 */
function flushed(): Promise<void> {
  const drain = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => (stream.writableLength === 0 || stream.destroyed ? resolve() : stream.write('', () => resolve())));
  return Promise.all([drain(process.stdout), drain(process.stderr)]).then(() => undefined);
}

// A usage error (a missing argument, an unknown option) is invalid input, exit 2 as the README's
// table says, not commander's 1; help and --version still exit 0. Set before any command is added,
// so that every subcommand inherits it.
const program = new Command('canon').description('Canon compiles agent memory.').showHelpAfterError().exitOverride();
// Set by run() before an action starts, so that actions read the configuration synchronously.
let loadConfig: (() => Config) | undefined;
const config = (): Config => {
  if (!loadConfig) throw new Error('the configuration is read inside an action');
  return loadConfig();
};

program
  .command('start')
  .description('run Canon: database, migrations, queue and the HTTP API')
  .action(run(async () => (await import('./commands/start.js')).start(config())));

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
  .action(run(async (opts: { workspace: string; role: Role; user?: string; label?: string; source?: string[]; json?: boolean }) => (await import('./commands/keys.js')).keysCreate(config(), opts)));
keys
  .command('list')
  .option('--workspace <id>', 'only this workspace')
  .option('--json', 'print JSON')
  .action(run(async (opts: { workspace?: string; json?: boolean }) => (await import('./commands/keys.js')).keysList(config(), opts)));
keys
  .command('revoke <id>')
  .action(run(async (id: string) => (await import('./commands/keys.js')).keysRevoke(config(), id)));

program
  .command('ingest <file>')
  .description('append the episodes of a JSONL file (one episode per line)')
  .option('--batch <n>', 'episodes per request', (v) => Number(v), 1000)
  .option('--json', 'print the summary as JSON')
  .action(run(async (file: string, opts: { batch: number; json?: boolean }) => (await import('./commands/ingest.js')).ingestFile(config(), file, opts)));

program
  .command('export')
  .description("write the workspace's log as NDJSON (episodes, tombstones, policies, a manifest) to stdout")
  .option('--subject <subject>', 'only this subject')
  .option('--all', 'every subject (the default)')
  .option('-o, --output <file>', 'write to this file instead of stdout')
  .action(run(async (opts: { subject?: string; all?: boolean; output?: string }) => (await import('./commands/export.js')).exportCommand(config(), opts)));

program
  .command('import <file>')
  .description('import an export: idempotent, then each subject compiled and compared with the manifest (exit 1 when one differs)')
  .option('--keep-policies', "import even though this workspace's own policies differ from the export's, under this workspace's")
  .option('--json', 'print the result as JSON')
  .action(run(async (file: string, opts: { keepPolicies?: boolean; json?: boolean }) => (await import('./commands/export.js')).importCommand(config(), file, opts)));

const positiveInteger = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer');
  return n;
};
type GithubFlags = { repo: string; token?: string; baseUrl?: string };
type WorkspaceFlags = { id?: string; maxFileBytes?: number; secretFile?: string[]; includeSecretFiles?: boolean; include?: string[]; exclude?: string[] };
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
type GitFlags = { id?: string };

type Connecting = typeof import('./commands/sync.js');
const syncWith = async (target: (c: Connecting) => ConnectorTarget, opts: ConnectorCommandOptions) => {
  const c = await import('./commands/sync.js');
  return c.syncCommand(config(), target(c), opts);
};
const addWith = async (target: (c: Connecting) => ConnectorTarget, opts: AddOptions) =>
  (await import('./commands/connectors.js')).connectorsAdd(config(), target(await import('./commands/sync.js')), opts);

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
).action(run(async (opts: GithubFlags & ConnectorCommandOptions) => syncWith((c) => c.githubTarget(opts), opts)));
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
).action(
  run(async (path: string, opts: WorkspaceFlags & ConnectorCommandOptions) =>
    syncWith((c) => {
      c.requireFolder(path);
      return c.workspaceTarget(path, opts);
    }, opts),
  ),
);
syncFlags(
  sync
    .command('git <path>')
    .description('first-parent commits and their package.json dependency changes')
    .option('--id <id>', "the repository id (default: origin's owner/name, else the folder name)"),
).action(
  run(async (path: string, opts: GitFlags & ConnectorCommandOptions) =>
    syncWith((c) => {
      c.requireFolder(path, true);
      return c.gitTarget(path, opts);
    }, opts),
  ),
);

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
).action(run(async (opts: Omit<GithubFlags, 'token'> & AddOptions) => addWith((c) => c.githubTarget(opts), opts)));
addFlags(
  add
    .command('workspace <path>')
    .option('--id <id>', 'the root id (default: the folder name)')
    .option('--max-file-bytes <n>', 'larger files are skipped', positiveInteger)
    .option('--secret-file <pattern>', 'also skip files matching this gitignore pattern as secret files; !pattern reads a default back (repeatable)', collect)
    .option('--include-secret-files', 'read .env, keys and credential files too (recognised secrets are still redacted)')
    .option('--include <pattern>', 'read only files matching this gitignore pattern, e.g. docs/** (repeatable)', collect)
    .option('--exclude <pattern>', 'skip files matching this gitignore pattern, on top of .gitignore (repeatable)', collect),
).action(run(async (path: string, opts: WorkspaceFlags & AddOptions) => addWith((c) => c.workspaceTarget(path, opts), opts)));
addFlags(add.command('git <path>').option('--id <id>', 'the repository id')).action(
  run(async (path: string, opts: GitFlags & AddOptions) => addWith((c) => c.gitTarget(path, opts), opts)),
);
connectors
  .command('list')
  .option('--workspace <id>', 'only this workspace')
  .option('--json', 'print JSON')
  .action(run(async (opts: { workspace?: string; json?: boolean }) => (await import('./commands/connectors.js')).connectorsList(config(), opts)));
connectors
  .command('run <id>')
  .description('run an instance now, in this process')
  .option('--workspace <id>', 'the workspace of the instance', 'default')
  .option('--dry-run', 'read the source and count; write nothing')
  .option('--json', 'print the summary as JSON')
  .action(run(async (id: string, opts: { workspace: string; dryRun?: boolean; json?: boolean }) => (await import('./commands/connectors.js')).connectorsRun(config(), id, opts)));
connectors
  .command('remove <id>')
  .description('remove an instance and its schedule (its cursor is kept)')
  .option('--workspace <id>', 'the workspace of the instance', 'default')
  .option('--json', 'print JSON')
  .action(run(async (id: string, opts: { workspace: string; json?: boolean }) => (await import('./commands/connectors.js')).connectorsRemove(config(), id, opts)));
connectors
  .command('reset <id>')
  .description("forget an instance's cursor: its next sync reads the source from the beginning (after a rewritten git history)")
  .option('--workspace <id>', 'the workspace of the instance', 'default')
  .action(run(async (id: string, opts: { workspace: string }) => (await import('./commands/connectors.js')).connectorsReset(config(), id, opts)));

registerCompileCommands(program, run, config);
registerOperationCommands(program, run, config);
registerRecallCommands(program, run, config);
registerLinkCommand(program, run, config);
registerSearchCommand(program, run, config);
registerContextCommand(program, run, config);
registerMcpCommand(program, run, config);
registerInspectCommand(program, run, config);
registerSecretsCommands(program, run, config);
registerChangeCommands(program, run, config);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  process.exit(err.exitCode === 0 ? 0 : 2);
}
