import { createHash } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { CanonError, UnavailableError, type ProblemType } from '@canon/core/errors';
import type { CanonPort, CompileRequest, CompileResult, ImportResult, JobView, ManyResult } from '@canon/runtime';
import type { paths } from './schema.js';

export type { components, paths } from './schema.js';
export type { CanonPort } from '@canon/runtime';

/**
 * A problem+json answer from a Canon server: its `type` is the problem's slug (the part after
 * `urn:canon:problem:`), as a `CanonError` raised in process has it, so a shell answers both
 * alike (the CLI's exit codes); `status` and the whole `problem` come with it.
 */
export class CanonApiError extends CanonError {
  readonly status: number;
  readonly problem: Record<string, unknown>;
  constructor(status: number, problem: Record<string, unknown>) {
    const slug = typeof problem['type'] === 'string' ? problem['type'].replace('urn:canon:problem:', '') : '';
    const { type: _type, title: _title, status: _status, detail, instance: _instance, ...details } = problem;
    super((slug || (status >= 500 ? 'unavailable' : 'validation')) as ProblemType, typeof detail === 'string' ? detail : `HTTP ${status}`, details);
    this.status = status;
    this.problem = problem;
  }
}

export interface HttpPortOptions {
  baseUrl: string;
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (request: Request) => Promise<Response>;
}

/** The port over HTTP, with the raw openapi-fetch client for the routes it does not wrap. */
export type HttpPort = CanonPort & { readonly mode: 'http'; readonly api: Client<paths> };

type Answer = { data?: unknown; error?: unknown; response: Response };

/**
 * The port over a Canon server's HTTP API, every request with `Authorization: Bearer <key>`:
 * paths, parameters and bodies are checked against the server's OpenAPI document
 * (`npm run client:generate`); a problem+json answer is thrown as a `CanonApiError`, a server
 * that cannot be reached as an `UnavailableError` naming it.
 */
export function httpPort(options: HttpPortOptions): HttpPort {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const api = createClient<paths>({
    baseUrl: base,
    headers: { authorization: `Bearer ${options.apiKey}` },
    async fetch(request: Request) {
      try {
        return await send(request);
      } catch (err) {
        if (request.signal.aborted) throw err;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new UnavailableError(`cannot reach Canon at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 2, { cause: err });
      }
    },
  });

  /**
   * The answer's JSON as the runtime's type: the server sends what the runtime returned, and the
   * generated types describe the same objects more loosely (values as `unknown`, kinds as strings).
   */
  async function answer<T>(call: Promise<Answer>): Promise<T> {
    let res: Answer;
    try {
      res = await call;
    } catch (err) {
      if (err instanceof SyntaxError) throw new CanonApiError(502, { type: 'urn:canon:problem:unavailable', detail: `an answer from ${base} that is not JSON` });
      throw err;
    }
    const { data, error, response } = res;
    if (!response.ok || data === undefined) {
      throw new CanonApiError(
        response.status,
        error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : { detail: `HTTP ${response.status} from ${base}${typeof error === 'string' && error ? ': not JSON' : ''}` },
      );
    }
    return data as T;
  }
  /** A streamed exchange (export, import): the response as it comes, or the problem it answers. */
  async function streamed(path: string, init: RequestInit & { duplex?: 'half' } = {}): Promise<Response> {
    let res: Response;
    try {
      res = await send(new Request(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${options.apiKey}`, ...(init.headers as Record<string, string> | undefined) } }));
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new UnavailableError(`cannot reach Canon at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 2, { cause: err });
    }
    if (res.ok) return res;
    const text = await res.text();
    let problem: Record<string, unknown>;
    try {
      problem = JSON.parse(text) as Record<string, unknown>;
    } catch {
      problem = { detail: `HTTP ${res.status} from ${base}: not JSON` };
    }
    throw new CanonApiError(res.status, problem);
  }
  const defined = <Q extends object>(query: Q): Q => Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as Q;
  const count = (n: unknown) => (n === undefined ? undefined : Number(n));

  return {
    mode: 'http',
    // The key's hash: the port knows no id of it, and the key itself goes nowhere but the header.
    writer: `key-hash:${createHash('sha256').update(options.apiKey).digest('hex')}`,
    api,
    ingest: (items, opts = {}) =>
      answer(
        api.POST('/v1/episodes', {
          params: { query: opts.compile ? { compile: opts.compile } : {} },
          // The route checks each item itself, to name the ones it refuses.
          body: { episodes: items } as paths['/v1/episodes']['post']['requestBody']['content']['application/json'],
        }),
      ),
    episodes: (subject, after, limit = 1000) => answer(api.GET('/v1/episodes', { params: { query: defined({ subject, after, limit }) } })),
    async compile(request) {
      const body = await answer<CompileResult | ManyResult | { job_id: string }>(api.POST('/v1/compile', { body: request }));
      return 'job_id' in body ? { async: true, job_id: body.job_id } : { async: false, result: body };
    },
    job: (id) => answer(api.GET('/v1/jobs/{job_id}', { params: { path: { job_id: id } } })),
    rebuild: (subject) => answer(api.POST('/v1/rebuild', { body: { subject } })),
    verify: (subject) => answer(api.POST('/v1/verify', { body: { subject } })),
    subjects: async () => (await answer<{ subjects: Awaited<ReturnType<CanonPort['subjects']>> }>(api.GET('/v1/subjects'))).subjects,
    memories: (subject, params = {}) => answer(api.GET('/v1/subjects/{subject}/memories', { params: { path: { subject }, query: defined(params) } })),
    memory: (id, params = {}) => answer(api.GET('/v1/memories/{id}', { params: { path: { id }, query: defined(params) } })),
    propose: (id, input, precondition = {}) =>
      answer(api.POST('/v1/memories/{id}/proposals', { params: { path: { id }, header: defined({ 'if-match': precondition.if_match }) }, body: input })),
    search: ({ include_history, limit, ...params }) =>
      answer(api.GET('/v1/search', { params: { query: defined({ ...params, limit: count(limit), include_history: include_history === undefined ? undefined : (`${include_history}` as const) }) } })),
    context: (request) => answer(api.POST('/v1/context', { body: request })),
    secrets: ({ limit, ...params }) => answer(api.GET('/v1/secrets', { params: { query: defined({ ...params, limit: count(limit) }) } })),
    conflicts: async (query = {}) => answer<Awaited<ReturnType<CanonPort['conflicts']>>>(api.GET('/v1/conflicts', { params: { query: defined(query) } })),
    resolve: (id, input) => answer(api.POST('/v1/memories/{id}/resolution', { params: { path: { id } }, body: input })),
    policies: () => answer(api.GET('/v1/policies')),
    setPolicies: (input) => answer(api.PUT('/v1/policies', { body: input })),
    preview: (input = {}) => answer(api.POST('/v1/preview', { body: input as { policies?: Record<string, unknown> } })),
    erase: (target) => answer(api.POST('/v1/erasures', { body: target })),
    link: (input) => answer(api.POST('/v1/links', { body: input })),
    schedule: () => answer(api.GET('/v1/schedule')),
    setSchedule: (schedule) => answer(api.PUT('/v1/schedule', { body: schedule })),
    deadLetters: async () => (await answer<{ jobs: Awaited<ReturnType<CanonPort['deadLetters']>> }>(api.GET('/v1/jobs/dead'))).jobs,
    redrive: async () => (await answer<{ redriven: number }>(api.POST('/v1/jobs/dead/redrive'))).redriven,
    connectorCursor: (instanceId) => answer(api.GET('/v1/connectors/{instance_id}/cursor', { params: { path: { instance_id: instanceId } } })),
    connectorBatch: (instanceId, batch) => answer(api.POST('/v1/connectors/{instance_id}/batches', { params: { path: { instance_id: instanceId } }, body: { ...batch, episodes: [...batch.episodes] } })),
    changes: (params = {}) =>
      answer(
        api.GET('/v1/changes', {
          params: { query: { ...(params.after !== undefined ? { after: params.after } : {}), ...(params.subject !== undefined ? { subject: params.subject } : {}), ...(params.predicate !== undefined ? { predicate: params.predicate } : {}), ...(params.limit !== undefined ? { limit: String(params.limit) } : {}) } },
          headers: { accept: 'application/json' },
        }),
      ),
    createWebhook: (input) => answer(api.POST('/v1/webhooks', { body: input })),
    webhooks: async () => (await answer<{ webhooks: Awaited<ReturnType<CanonPort['webhooks']>> }>(api.GET('/v1/webhooks'))).webhooks,
    removeWebhook: (id) => answer(api.DELETE('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: id } } })),
    async exportLog(params) {
      const res = await streamed(`/v1/export${params.subject !== undefined ? `?subject=${encodeURIComponent(params.subject)}` : ''}`);
      return { episodes: Number(res.headers.get('x-canon-episodes') ?? 0), lines: responseLines(res) };
    },
    async importLog(lines, opts = {}) {
      let bytes = 0;
      const encoder = new TextEncoder();
      const iterator = lines[Symbol.asyncIterator]();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) return controller.close();
          const chunk = encoder.encode(`${next.value}\n`);
          bytes += chunk.length;
          opts.onProgress?.({ bytes });
          controller.enqueue(chunk);
        },
        async cancel() {
          await iterator.return?.();
        },
      });
      const res = await streamed(`/v1/import${opts.keepPolicies ? '?policies=keep' : ''}`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/x-ndjson' } });
      return (await res.json()) as ImportResult;
    },
    close: async () => undefined,
  };
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

export interface CompileAndWaitOptions {
  pollMs?: number;
  timeoutMs?: number;
}

/** Queues the compile as a job and polls it until it completes; throws when it fails or times out. */
export async function compileAndWait(port: Pick<CanonPort, 'compile' | 'job'>, request: Omit<CompileRequest, 'async'>, wait: CompileAndWaitOptions = {}): Promise<JobView> {
  const pollMs = wait.pollMs ?? 200;
  const timeoutMs = wait.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const queued = await port.compile({ ...request, async: true });
  if (!queued.async) throw new Error('the server compiled synchronously; expected a job');
  for (;;) {
    const job = await port.job(queued.job_id);
    if (job.state === 'completed') return job;
    if (job.state === 'failed' || job.state === 'cancelled') throw new Error(`compile job ${job.job_id} ${job.state}: ${JSON.stringify(job.error ?? null)}`);
    if (Date.now() > deadline) throw new Error(`compile job ${job.job_id} still ${job.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
