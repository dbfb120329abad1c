import { CanonError, type ProblemType } from '@canon/core/errors';
import { everyPage } from '@canon/core/pages';
import { CanonApiError, createCanonClient } from '@canon/client';
import type {
  ErasureResult,
  ErasureTarget,
  LinkResult,
  MemoryDetail,
  MemorySummary,
  OpenConflict,
  PoliciesView,
  PolicyChange,
  PreviewResult,
  Principal,
  ProposalResult,
  RecallParams,
  Runtime,
  SubjectRecall,
} from '@canon/runtime';

/** Recall, conflicts, policies and erasure: what `canon memories|history|conflicts|resolve|policies|erase` need. */
export interface RecallClient {
  /** Every memory of the subject: the pages read one after another. */
  memories(subject: string, at?: RecallParams): Promise<{ subject: string; at: string; known_at: string | null; memories: MemorySummary[] }>;
  memory(id: string, at?: RecallParams): Promise<MemoryDetail & { known_at?: string | null }>;
  conflicts(subject?: string): Promise<OpenConflict[]>;
  resolve(id: string, resolution: { value: unknown; reason: string; idempotency_key?: string }): Promise<Omit<ProposalResult, 'outcome'> & { outcome: 'applied' | 'duplicate' }>;
  policies(): Promise<PoliciesView>;
  setPolicies(policies: unknown): Promise<PolicyChange>;
  preview(input: { policies?: unknown }): Promise<PreviewResult>;
  erase(target: ErasureTarget): Promise<ErasureResult>;
  link(input: { memories: [string, string]; same: boolean; idempotency_key: string; reason?: string }): Promise<LinkResult>;
}

export function localRecallClient(runtime: Runtime, principal: Principal): RecallClient {
  return {
    memories: (subject, at = {}) => everyPage('memories', (after) => runtime.memories(principal, subject, { ...at, after })),
    memory: (id, at = {}) => runtime.memory(principal, id, at),
    conflicts: (subject) => runtime.conflicts(principal, { subject }),
    resolve: (id, resolution) => runtime.resolve(principal, id, resolution),
    policies: () => runtime.policies(principal),
    setPolicies: (policies) => runtime.setPolicies(principal, policies),
    preview: (input) => runtime.preview(principal, input),
    erase: (target) => runtime.erase(principal, target),
    link: (input) => runtime.link(principal, input),
  };
}

/** A problem+json answer from a Canon server, rethrown as the domain error it names (exit codes follow). */
class RemoteProblem extends CanonError {}

async function remote<T>(call: Promise<unknown>): Promise<T> {
  try {
    return (await call) as T;
  } catch (err) {
    if (!(err instanceof CanonApiError)) throw err;
    const { type: _t, title: _ti, status: _s, detail: _d, instance: _i, ...details } = err.problem;
    throw new RemoteProblem((err.slug || 'validation') as ProblemType, err.message, details);
  }
}

/** Over HTTP, through the typed client generated from the server's OpenAPI document. */
export function httpRecallClient(baseUrl: string, apiKey: string): RecallClient {
  const api = createCanonClient({ baseUrl, apiKey });
  // The JSON is the runtime's own answer; the generated types describe the same shapes.
  return {
    memories: (subject, at = {}) =>
      everyPage('memories', (after) => remote<SubjectRecall>(api.memories(subject, { ...(at as { as_of?: string; known_at?: string }), ...(after === undefined ? {} : { after }) }))),
    memory: async (id, at = {}) => (await remote<{ memory: MemoryDetail }>(api.memory(id, at as { as_of?: string; known_at?: string }))).memory,
    conflicts: (subject) => remote(api.conflicts(subject === undefined ? {} : { subject })),
    resolve: (id, resolution) => remote(api.resolve(id, resolution)),
    policies: () => remote(api.policies()),
    setPolicies: (policies) => remote(api.setPolicies(policies as never)),
    preview: (input) => remote(api.preview(input as never)),
    erase: (target) => remote(api.erase(target)),
    link: (input) => remote(api.link(input)),
  };
}
