import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded exchange, as the fixtures store it (see connectors/github/fixtures/README.md). */
export interface Recording {
  method: string;
  path: string;
  status: number;
  response: unknown;
  headers: Record<string, string | number>;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ReplayServer {
  baseUrl: string;
  /** Every request received, in order: `GET /repos/o/r/issues?…`. */
  requests: string[];
  /** Answers a request before the recordings do (errors, injected failures). */
  intercept: ((request: URL, method: string, headers: IncomingHttpHeaders) => Reply | undefined) | undefined;
  /** Rewrites a recorded body before it is sent (later versions of an issue). */
  mutate: ((body: unknown, request: URL) => unknown) | undefined;
  close(): Promise<void>;
}

/** The recorded responses, kept in this package with their license and origin. */
export const FIXTURES = new URL('../../fixtures/', import.meta.url);

export function loadRecordings(name: string): Recording[] {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Recording[];
}

const DROPPED_HEADERS = new Set(['content-length', 'connection', 'transfer-encoding', 'content-encoding']);

/**
 * Serves recorded GitHub responses on 127.0.0.1. A request matches a recording on method,
 * path and `page` only (the recorded queries differ from the connector's); absolute `Link`
 * URLs are rewritten to this server so pagination stays local.
 */
export async function startReplayServer(recordings: readonly Recording[]): Promise<ReplayServer> {
  const state: ReplayServer = {
    baseUrl: '',
    requests: [],
    intercept: undefined,
    mutate: undefined,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', state.baseUrl);
    const method = (req.method ?? 'GET').toLowerCase();
    state.requests.push(`${method.toUpperCase()} ${url.pathname}${url.search}`);
    const send = (reply: Reply) => {
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    };
    const intercepted = state.intercept?.(url, method, req.headers);
    if (intercepted) return send(intercepted);
    const page = url.searchParams.get('page') ?? '1';
    const recording = recordings.find((r) => {
      const recorded = new URL(r.path, 'http://recorded.test');
      return r.method.toLowerCase() === method && recorded.pathname === url.pathname && (recorded.searchParams.get('page') ?? '1') === page;
    });
    if (!recording) return send({ status: 404, body: { message: 'Not Found' } });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(recording.headers)) {
      if (DROPPED_HEADERS.has(name)) continue;
      headers[name] = name === 'link' ? String(value).replaceAll('https://api.github.com', state.baseUrl) : String(value);
    }
    const body = state.mutate ? state.mutate(structuredClone(recording.response), url) : recording.response;
    send({ status: recording.status, body, headers });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
