import type { PgBoss } from 'pg-boss';
import type { Pool } from '@canon/store';
import { listConflicts, resolveConflict, type ConflictPage, type ResolveInput } from './conflicts.js';
import { erase, type ErasureResult, type ErasureTarget } from '../erasure/erasure.js';
import { getPolicies, putPolicies, type PoliciesView, type PolicyChange } from './policy-change.js';
import type { Principal } from '../auth/principal.js';
import { previewChange, type PreviewResult } from '../compile/preview.js';
import { proposeChange, type ProposalInput, type ProposalResult } from './proposals.js';
import { linkMemories, type LinkInput, type LinkResult } from '../links/link-memories.js';

/** The runtime's conditional writes, conflicts, policies and erasure (design §7, §8, §10). */
export interface RecallWrites {
  /** A conditional change of a memory: `expected_revision` in the input or `if_match` (an ETag header). */
  propose(principal: Principal, memoryId: string, input: ProposalInput | unknown, precondition?: { if_match?: string | undefined }): Promise<ProposalResult>;
  conflicts(principal: Principal, query?: { subject?: string | undefined; limit?: number | string | undefined; after?: string | undefined }): Promise<ConflictPage>;
  resolve(principal: Principal, memoryId: string, input: ResolveInput | unknown): Promise<Omit<ProposalResult, 'outcome'> & { outcome: 'applied' | 'duplicate' }>;
  policies(principal: Principal): Promise<PoliciesView>;
  setPolicies(principal: Principal, input: unknown): Promise<PolicyChange>;
  /** What compiling under proposed policies (or this build's compiler) would change; writes nothing. */
  preview(principal: Principal, input?: { policies?: unknown }): Promise<PreviewResult>;
  erase(principal: Principal, target: ErasureTarget): Promise<ErasureResult>;
  /** That two memories of one subject are one fact, or distinct (design §1): a claim in the log. */
  link(principal: Principal, input: LinkInput | unknown): Promise<LinkResult>;
}

export function createRecallWrites(pool: Pool, boss: () => PgBoss | null, resolverHosts: readonly string[] = []): RecallWrites {
  return {
    propose: (principal, memoryId, input, precondition) => proposeChange(pool, principal, memoryId, input, precondition),
    conflicts: (principal, query = {}) => listConflicts(pool, principal, query),
    resolve: (principal, memoryId, input) => resolveConflict(pool, principal, memoryId, input),
    policies: (principal) => getPolicies(pool, principal),
    setPolicies: (principal, input) => putPolicies(pool, boss(), principal, input, resolverHosts),
    preview: (principal, input = {}) => previewChange(pool, principal, input),
    erase: (principal, target) => erase(pool, principal, target),
    link: (principal, input) => linkMemories(pool, principal, input),
  };
}
