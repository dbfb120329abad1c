import type { Command } from 'commander';
import type { Run } from '../lazy-port.js';
import type { Config } from '@canon/runtime';


export function registerMcpCommand(program: Command, run: Run, config: () => Config): void {
  program
    .command('mcp')
    .description('serve Canon to an agent over MCP on stdin/stdout (CANON_URL + CANON_API_KEY, else in this process)')
    .action(
      run(async () => {
        // Stdout carries the MCP protocol only, from the first byte: anything a library logs while
        // the runtime starts goes to stderr (embedded PostgreSQL logs to a file in CANON_HOME).
        console.log = console.error;
        console.info = console.error;
        // In-process: this process works the queue while it serves, so `compile` with async runs,
        // and, serving as long as `canon start` does, it fires the stored schedules as that does
        // (unless CANON_SCHEDULES=off).
        const { openPort } = await import('../port.js');
        const settings = config();
        const port = await openPort(settings, { queue: true, schedules: settings.jobs.fireSchedules });
        const { serveStdio } = await import('@canon/mcp');
        await serveStdio(port);
      }),
    );
}
