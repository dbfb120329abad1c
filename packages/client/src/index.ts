import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths } from './schema.js';
export type Schemas = components['schemas'];

type Json<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type Memory = Schemas['Memory'];
export type MemoryWriteResult = Schemas['MemoryWriteResult'];
export type Link = Schemas['Link'];
export type LinkResult = Schemas['LinkResult'];
export type Proposal = Schemas['Proposal'];
export type Conflict = Schemas['Conflict'];
export type Policies = Schemas['Policies'];
export type PolicyChange = Schemas['PolicyChange'];
export type WorkspacePolicies = Schemas['WorkspacePolicies'];
export type Preview = Schemas['Preview'];
export type Erasure = Schemas['Erasure'];
export type SubjectMemories = Json<'/v1/subjects/{subject}/memories', 'get'>;
export type CompileRequest = Body<'/v1/compile', 'post'>;
export type CompileResult = Schemas['CompileResult'];
export type CompileManyResult = Schemas['CompileManyResult'];
export type Job = Schemas['Job'];
export type IngestResponse = Schemas['IngestResponse'];

/** A problem+json answer, with its stable `type` (`urn:canon:problem:…`) and any extra members. */
export class CanonApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly problem: Record<string, unknown>;
  constructor(status: number, problem: Record<string, unknown>) {
    super(typeof problem['detail'] === 'string' ? problem['detail'] : `HTTP ${status}`);
    this.name = 'CanonApiError';
    this.status = status;
    this.type = typeof problem['type'] === 'string' ? problem['type'] : 'urn:canon:problem:internal';
    this.problem = problem;
  }
  /** The slug after `urn:canon:problem:` (validation, not_found, precondition_failed, busy …). */
  get slug(): string {
    return this.type.replace('urn:canon:problem:', '');
  }
}

export interface CanonClientOptions {
  baseUrl: string;
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: typeof fetch;
}

export interface CompileAndWaitOptions {
  pollMs?: number;
  timeoutMs?: number;
}

type Recall = { as_of?: string; known_at?: string };

async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) {
    throw new CanonApiError(response.status, (error as Record<string, unknown> | undefined) ?? { detail: `HTTP ${response.status}` });
  }
  return { data, response };
}

const etagOf = (response: Response): string | null => response.headers.get('etag');

/**
 * A typed client of Canon's HTTP API. Types come from the OpenAPI document
 * (`npm run client:generate`); `api` is the raw openapi-fetch client for every other route.
 */
export function createCanonClient(options: CanonClientOptions) {
  const api: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  const client = {
    api,
    async ingest(episodes: unknown[], opts: { compile?: 'wait' } = {}): Promise<IngestResponse & { compiled?: CompileResult[] }> {
      const res = await unwrap(
        api.POST('/v1/episodes', {
          params: { query: opts.compile ? { compile: opts.compile } : {} } as never,
          body: { episodes } as never,
        }),
      );
      return res.data as IngestResponse & { compiled?: CompileResult[] };
    },
    async compile(request: CompileRequest): Promise<CompileResult | CompileManyResult | { job_id: string }> {
      return (await unwrap(api.POST('/v1/compile', { body: request }))).data as CompileResult | CompileManyResult | { job_id: string };
    },
    async job(jobId: string): Promise<Job> {
      return (await unwrap(api.GET('/v1/jobs/{job_id}', { params: { path: { job_id: jobId } } }))).data;
    },
    /** Queues the compile as a job and polls it until it completes; throws when it fails or times out. */
    async compileAndWait(request: Omit<CompileRequest, 'async'>, wait: CompileAndWaitOptions = {}): Promise<Job> {
      const pollMs = wait.pollMs ?? 200;
      const deadline = Date.now() + (wait.timeoutMs ?? 60_000);
      const queued = await client.compile({ ...request, async: true } as CompileRequest);
      if (!('job_id' in queued)) throw new Error('the server compiled synchronously; expected a job');
      for (;;) {
        const job = await client.job(queued.job_id);
        if (job.state === 'completed') return job;
        if (job.state === 'failed' || job.state === 'cancelled') throw new Error(`compile job ${job.job_id} ${job.state}: ${JSON.stringify(job.error ?? null)}`);
        if (Date.now() > deadline) throw new Error(`compile job ${job.job_id} still ${job.state} after ${wait.timeoutMs ?? 60_000} ms`);
        await new Promise((r) => setTimeout(r, pollMs));
      }
    },
    async subjects() {
      return (await unwrap(api.GET('/v1/subjects'))).data.subjects;
    },
    /** One page of a subject's memories (`limit`, default 100); pass `next` as `after` for the rest. */
    async memories(subject: string, at: Recall & { limit?: number; after?: string } = {}): Promise<SubjectMemories> {
      return (await unwrap(api.GET('/v1/subjects/{subject}/memories', { params: { path: { subject }, query: at } }))).data;
    },
    /** One memory, with the ETag a PATCH needs. */
    async memory(id: string, at: Recall = {}): Promise<{ memory: Memory; etag: string | null }> {
      const { data, response } = await unwrap(api.GET('/v1/memories/{id}', { params: { path: { id }, query: at } }));
      return { memory: data, etag: etagOf(response) };
    },
    async propose(id: string, proposal: Proposal, opts: { ifMatch?: string } = {}): Promise<MemoryWriteResult & { etag: string | null }> {
      const { data, response } = await unwrap(
        api.POST('/v1/memories/{id}/proposals', {
          params: { path: { id }, header: opts.ifMatch ? { 'if-match': opts.ifMatch } : {} },
          body: proposal,
        }),
      );
      return { ...data, etag: etagOf(response) };
    },
    async patch(id: string, etag: string, proposal: Omit<Proposal, 'expected_revision'>): Promise<MemoryWriteResult & { etag: string | null }> {
      const { data, response } = await unwrap(api.PATCH('/v1/memories/{id}', { params: { path: { id }, header: { 'if-match': etag } }, body: proposal }));
      return { ...data, etag: etagOf(response) };
    },
    async conflicts(query: { subject?: string; limit?: number } = {}): Promise<Conflict[]> {
      return (await unwrap(api.GET('/v1/conflicts', { params: { query } }))).data.conflicts;
    },
    async resolve(id: string, resolution: { value: unknown; reason: string; idempotency_key?: string }): Promise<MemoryWriteResult> {
      return (await unwrap(api.POST('/v1/conflicts/{id}/resolve', { params: { path: { id } }, body: resolution }))).data;
    },
    async policies(): Promise<Policies> {
      return (await unwrap(api.GET('/v1/policies'))).data;
    },
    async setPolicies(policies: WorkspacePolicies): Promise<PolicyChange> {
      return (await unwrap(api.PUT('/v1/policies', { body: policies }))).data;
    },
    /** What compiling under proposed policies (or this build's compiler) would change; writes nothing. */
    async preview(input: { policies?: WorkspacePolicies } = {}): Promise<Preview> {
      return (await unwrap(api.POST('/v1/preview', { body: input as { policies?: Record<string, unknown> } }))).data;
    },
    /** Two memories are one fact (`same: true`) or distinct (`same: false`): a link episode. */
    async link(link: Link): Promise<LinkResult> {
      return (await unwrap(api.POST('/v1/links', { body: link }))).data;
    },
    async erase(target: { subject: string } | { user: string }): Promise<Erasure> {
      return (await unwrap(api.POST('/v1/erasures', { body: target }))).data;
    },
  };
  return client;
}

export type CanonHttpClient = ReturnType<typeof createCanonClient>;
