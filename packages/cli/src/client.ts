import { CanonError, UnauthorizedError, type ProblemType } from '@canon/core';
import { createRuntime, type Config, type IngestResult, type Runtime, type Principal } from '@canon/runtime';
import { readDevKey, runningServer } from './home.js';

/** What a CLI command needs from Canon, whether over HTTP or in this process. */
export interface CanonClient {
  readonly mode: 'http' | 'local';
  ingest(items: unknown[]): Promise<Pick<IngestResult, 'items' | 'created' | 'duplicates'>>;
  close(): Promise<void>;
}

/** A problem+json answer from a Canon server, rethrown as the domain error it names. */
export class RemoteError extends CanonError {}

/**
 * CANON_URL (+ CANON_API_KEY) → that server; else a server running on this CANON_HOME → it,
 * with the dev key; else an in-process runtime on the same database.
 */
export async function connect(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<CanonClient> {
  const key = env['CANON_API_KEY'] || readDevKey(config);
  const url = env['CANON_URL'] || runningServer(config)?.url;
  if (url) {
    if (!key) throw new UnauthorizedError('set CANON_API_KEY to an API key of that server');
    return httpClient(url.replace(/\/$/, ''), key);
  }
  const runtime = await createRuntime(config, { queue: false });
  try {
    if (!key) {
      const created = await runtime.bootstrap();
      if (!created) throw new UnauthorizedError('set CANON_API_KEY (no dev key in CANON_HOME)');
    }
    const principal = await runtime.authenticate(key ?? readDevKey(config) ?? undefined);
    return localClient(runtime, principal);
  } catch (err) {
    await runtime.close();
    throw err;
  }
}

function localClient(runtime: Runtime, principal: Principal): CanonClient {
  return {
    mode: 'local',
    ingest: (items) => runtime.ingest(principal, items),
    close: () => runtime.close(),
  };
}

function httpClient(base: string, key: string): CanonClient {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) {
      const type = String(json['type'] ?? '').replace('urn:canon:problem:', '') as ProblemType;
      const { type: _t, title: _ti, status: _s, detail, instance: _i, ...details } = json;
      throw new RemoteError(type || 'validation', String(detail ?? `HTTP ${res.status}`), details);
    }
    return json as T;
  }
  return {
    mode: 'http',
    ingest: (items) => call('POST', '/v1/episodes', { episodes: items }),
    close: async () => undefined,
  };
}
