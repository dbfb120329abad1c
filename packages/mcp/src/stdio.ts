import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CanonPort } from '@canon/runtime';
import { createCanonMcpServer } from './server.js';

/**
 * Serves the tools on stdin/stdout until the client goes away (stdin ends) or a signal comes.
 * Stdout is the protocol's alone: console.log and friends are sent to stderr for the life of
 * the server, so no library's stray line can corrupt a message.
 */
export async function serveStdio(port: CanonPort): Promise<void> {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const server = createCanonMcpServer(port);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  await port.close();
}
