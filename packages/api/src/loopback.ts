import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** An app served on a loopback port: its address, and how to stop it. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

/**
 * An app (`createApp`'s) served by the same Node adapter `canon start` uses, on a loopback port of
 * its own: what the tests and benchmarks talk to over real HTTP.
 */
export async function serveOnLoopback(app: { fetch: Parameters<typeof serve>[0]['fetch'] }): Promise<Served> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
