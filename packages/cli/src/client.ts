import { CanonError, UnauthorizedError, UnavailableError, type ProblemType } from '@canon/core/errors';
import type {
  CompileRequest,
  CompileResponse,
  CompileResult,
  ContextBundle,
  ContextRequest,
  SearchParams,
  SearchResponse,
  SecretScanParams,
  SecretScanResult,
  Config,
  DeadLetter,
  NightlySchedule,
  IngestResult,
  JobView,
  ImportResult,
  Principal,
  Runtime,
  VerifyReport,
} from '@canon/runtime';
import { readDevKey, runningServer, writeDevKey } from './home.js';
import { httpRecallClient, localRecallClient, type RecallClient } from './recall-client.js';

/** What a CLI command needs from Canon, whether over HTTP or in this process. */
export interface CanonClient extends RecallClient {
  readonly mode: 'http' | 'local';
  ingest(items: unknown[]): Promise<Pick<IngestResult, 'items' | 'created' | 'duplicates'> & Partial<Pick<IngestResult, 'redacted' | 'refused'>>>;
  /** Episodes of the log holding a detected secret, one bounded page (owner, maintainer). */
  secrets(params: SecretScanParams): Promise<SecretScanResult>;
  compile(request: CompileRequest): Promise<CompileResponse>;
  job(id: string): Promise<JobView>;
  rebuild(subject: string): Promise<CompileResult>;
  verify(subject: string): Promise<VerifyReport>;
  subjects(): Promise<Array<{ subject: string; episodes: number; memories: number; pending: number; open_conflicts: number }>>;
  schedule(): Promise<NightlySchedule | null>;
  setSchedule(schedule: NightlySchedule): Promise<NightlySchedule>;
  deadLetters(): Promise<DeadLetter[]>;
  redrive(): Promise<number>;
  search(params: SearchParams): Promise<SearchResponse>;
  context(request: ContextRequest): Promise<ContextBundle>;
  /** The workspace's log as export lines (owner, maintainer), and how many episodes they hold. */
  exportLog(params: { subject?: string }): Promise<{ episodes: number; lines: AsyncIterable<string> }>;
  /** Imports an export file (owner); progress in episodes (in process) or bytes sent (to a server). */
  importFile(file: string, options: ImportFileOptions): Promise<ImportResult>;
  close(): Promise<void>;
}

export interface ImportFileOptions {
  keepPolicies?: boolean;
  onProgress?: (progress: { episodes?: number; bytes?: number }) => void;
}

/** The lines of a file, read as a stream. */
export async function* fileLines(file: string): AsyncGenerator<string, void, undefined> {
  const fs = await import('node:fs');
  const readline = await import('node:readline');
  const input = fs.createReadStream(file, 'utf8');
  try {
    yield* readline.createInterface({ input, crlfDelay: Infinity });
  } finally {
    input.destroy();
  }
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
  // In-process with no server: this process works the queue while it lives, so an async
  // compile it starts (or one left queued) gets done. The runtime is imported only here, so a
  // command that talks to a server never loads it.
  const { createRuntime } = await import('@canon/runtime');
  const runtime = await createRuntime(config, { queue: true });
  try {
    let bearer = key;
    if (!bearer) {
      // A fresh database: mint the owner key `canon start` would, and keep it where it would.
      const created = await runtime.bootstrap();
      if (!created) throw new UnauthorizedError('set CANON_API_KEY (no dev key in CANON_HOME)');
      writeDevKey(config, created.key);
      bearer = created.key;
    }
    const principal = await runtime.authenticate(bearer);
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
    compile: (request) => runtime.compile(principal, request),
    job: (id) => runtime.job(principal, id),
    rebuild: (subject) => runtime.rebuild(principal, subject),
    verify: (subject) => runtime.verify(principal, subject),
    subjects: () => runtime.subjects(principal),
    schedule: () => runtime.schedule(principal),
    setSchedule: (schedule) => runtime.setSchedule(principal, schedule),
    deadLetters: () => runtime.deadLetters(principal),
    redrive: () => runtime.redrive(principal),
    search: (params) => runtime.search(principal, params),
    context: (request) => runtime.context(principal, request),
    secrets: (params) => runtime.secrets(principal, params),
    exportLog: (params) => runtime.exportLog(principal, params.subject !== undefined ? { subject: params.subject } : { all: true }),
    importFile: (file, options) =>
      runtime.importLog(principal, fileLines(file), {
        ...(options.keepPolicies ? { keepPolicies: true } : {}),
        onProgress: (p) => options.onProgress?.({ episodes: p.episodes }),
      }),
    ...localRecallClient(runtime, principal),
    close: () => runtime.close(),
  };
}

/** Search parameters as a query string; absent ones are left out. */
function searchQuery(params: SearchParams): string {
  const q = new URLSearchParams({ q: params.q });
  if (params.subject !== undefined) q.set('subject', params.subject);
  if (params.limit !== undefined) q.set('limit', String(params.limit));
  if (params.include_history !== undefined) q.set('include_history', String(params.include_history));
  return q.toString();
}

/**
 * One request to a Canon server: JSON in and out, a problem+json answer rethrown as the domain
 * error it names, a server that cannot be reached as one line naming it.
 */
export function httpCall(base: string, key: string) {
  return async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? null : JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new UnavailableError(`cannot reach Canon at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 2, { cause: err });
    }
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new RemoteError(res.status >= 500 ? 'unavailable' : 'validation', `HTTP ${res.status} from ${base}: not JSON`);
    }
    if (!res.ok) {
      const type = String(json['type'] ?? '').replace('urn:canon:problem:', '') as ProblemType;
      const { type: _t, title: _ti, status: _s, detail, instance: _i, ...details } = json;
      throw new RemoteError(type || 'validation', String(detail ?? `HTTP ${res.status}`), details);
    }
    return json as T;
  };
}

/**
 * A streamed request to a Canon server: the response as it comes, or, for a problem+json answer,
 * the domain error it names.
 */
async function send(base: string, key: string, method: string, path: string, init: { body?: ReadableStream<Uint8Array>; headers?: Record<string, string> } = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) },
      ...(init.body ? { body: init.body, duplex: 'half' } : {}),
    } as RequestInit);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new UnavailableError(`cannot reach Canon at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 2, { cause: err });
  }
  if (res.ok) return res;
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw new RemoteError(res.status >= 500 ? 'unavailable' : 'validation', `HTTP ${res.status} from ${base}: not JSON`);
  }
  const type = String(json['type'] ?? '').replace('urn:canon:problem:', '') as ProblemType;
  const { type: _t, title: _ti, status: _s, detail, instance: _i, ...details } = json;
  throw new RemoteError(type || 'validation', String(detail ?? `HTTP ${res.status}`), details);
}

/** The lines of a streamed NDJSON response. */
async function* responseLines(res: Response): AsyncGenerator<string, void, undefined> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let partial = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    partial += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = partial.indexOf('\n')) >= 0) {
      yield partial.slice(0, at);
      partial = partial.slice(at + 1);
    }
  }
  partial += decoder.decode();
  if (partial.length > 0) yield partial;
}

function httpClient(base: string, key: string): CanonClient {
  const call = httpCall(base, key);
  return {
    mode: 'http',
    ingest: (items) => call('POST', '/v1/episodes', { episodes: items }),
    async compile(request) {
      const body = await call<Record<string, unknown>>('POST', '/v1/compile', request);
      return request.async ? { async: true, job_id: String(body['job_id']) } : { async: false, result: body as unknown as CompileResult };
    },
    job: (id) => call('GET', `/v1/jobs/${encodeURIComponent(id)}`),
    rebuild: (subject) => call('POST', '/v1/rebuild', { subject }),
    verify: (subject) => call('POST', '/v1/verify', { subject }),
    subjects: async () => (await call<{ subjects: Awaited<ReturnType<CanonClient['subjects']>> }>('GET', '/v1/subjects')).subjects,
    schedule: () => call('GET', '/v1/schedule'),
    setSchedule: (schedule) => call('PUT', '/v1/schedule', schedule),
    deadLetters: async () => (await call<{ jobs: DeadLetter[] }>('GET', '/v1/jobs/dead')).jobs,
    redrive: async () => (await call<{ redriven: number }>('POST', '/v1/jobs/dead/redrive')).redriven,
    search: (params) => call('GET', `/v1/search?${searchQuery(params)}`),
    context: (request) => call('POST', '/v1/context', request),
    secrets(params) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
      return call('GET', `/v1/secrets?${q.toString()}`);
    },
    async exportLog(params) {
      const res = await send(base, key, 'GET', `/v1/export${params.subject !== undefined ? `?subject=${encodeURIComponent(params.subject)}` : ''}`);
      return { episodes: Number(res.headers.get('x-canon-episodes') ?? 0), lines: responseLines(res) };
    },
    async importFile(file, options) {
      const fs = await import('node:fs');
      const { Readable, Transform } = await import('node:stream');
      let bytes = 0;
      const counted = fs.createReadStream(file).pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            bytes += chunk.length;
            options.onProgress?.({ bytes });
            done(null, chunk);
          },
        }),
      );
      const res = await send(base, key, 'POST', `/v1/import${options.keepPolicies ? '?policies=keep' : ''}`, {
        body: Readable.toWeb(counted) as ReadableStream<Uint8Array>,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      return (await res.json()) as ImportResult;
    },
    ...httpRecallClient(base, key),
    close: async () => undefined,
  };
}

/** Runs fn with a client for this configuration and closes it, whatever happens. */
export async function withClient(config: Config, fn: (client: CanonClient) => Promise<void>): Promise<void> {
  const client = await connect(config);
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

/** How a command's action is wrapped (one-line errors, exit codes): see main.ts. */
export type Run = <A extends unknown[]>(fn: (...args: A) => Promise<void>) => (...args: A) => Promise<void>;
