import { CanonError, type ProblemType } from '@canon/core';
import type { CompileResult } from '@canon/runtime';
import { everyPage } from '@canon/core/pages';
import type { CanonPort, MemoriesAt } from './port.js';

/** A problem+json answer from a Canon server, rethrown as the domain error it names. */
export class RemoteProblem extends CanonError {}

/** The port over a Canon server's HTTP API, with `Authorization: Bearer <key>`. */
export function httpPort(url: string, key: string, fetchImpl: typeof fetch = fetch): CanonPort {
  const base = url.replace(/\/+$/, '');
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetchImpl(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new RemoteProblem('validation', `HTTP ${res.status} from ${base}: not JSON`);
    }
    if (!res.ok) {
      const type = String(json['type'] ?? '').replace('urn:canon:problem:', '') as ProblemType;
      throw new RemoteProblem(type || 'validation', String(json['detail'] ?? `HTTP ${res.status}`));
    }
    return json as T;
  }
  const at = (asOf?: string) => (asOf ? `?as_of=${encodeURIComponent(asOf)}` : '');
  return {
    mode: 'http',
    async ingestAndCompile(items) {
      const out = await call<{ items: never; compiled?: CompileResult[] }>('POST', '/v1/episodes?compile=wait', { episodes: items });
      return { items: out.items, compiled: out.compiled ?? [] };
    },
    subjects: async () => (await call<{ subjects: never }>('GET', '/v1/subjects')).subjects,
    memories: (subject, asOf) =>
      everyPage('memories', (after) => {
        const q = new URLSearchParams({ limit: '1000', ...(asOf ? { as_of: asOf } : {}), ...(after ? { after } : {}) });
        return call<MemoriesAt & { next: string | null }>('GET', `/v1/subjects/${encodeURIComponent(subject)}/memories?${q.toString()}`);
      }),
    memory: (id, asOf) => call('GET', `/v1/memories/${encodeURIComponent(id)}${at(asOf)}`),
    episodes(subject, after, limit = 1000) {
      const q = new URLSearchParams({ subject, limit: String(limit), ...(after ? { after } : {}) });
      return call('GET', `/v1/episodes?${q.toString()}`);
    },
    async conflicts(subject) {
      const q = new URLSearchParams({ limit: '1000', ...(subject ? { subject } : {}) });
      return (await call<{ conflicts: never }>('GET', `/v1/conflicts?${q.toString()}`)).conflicts;
    },
    search(q, subject, limit) {
      const params = new URLSearchParams({ q, limit: String(limit), ...(subject ? { subject } : {}) });
      return call('GET', `/v1/search?${params.toString()}`);
    },
    context: (request) => call('POST', '/v1/context', request),
    link: (input) => call('POST', '/v1/links', input),
    async compile(request) {
      const body = await call<Record<string, unknown>>('POST', '/v1/compile', request);
      return request.async ? { async: true, job_id: String(body['job_id']) } : { async: false, result: body as unknown as CompileResult };
    },
    job: (id) => call('GET', `/v1/jobs/${encodeURIComponent(id)}`),
    close: async () => undefined,
  };
}
