import type { PgBoss } from 'pg-boss';
import { aRole, atLeast, canonicalJson, COMPILER_VERSION, ForbiddenError, policyFor, type PolicySet, type SecretsMode } from '@canon/core';
import { lockPolicies, restampSubjects, subjectsOfPredicates, subjectsOfWorkspace, type Pool, type PoolClient } from '@canon/store';
import { compileSubject, type CompileResult } from '../compile/compile.js';
import { bossDb, QUEUES, type CompileJobData } from '../compile/jobs.js';
import { checkResolverPolicy } from '../links/workspace-resolver.js';
import { loadPolicySet, savePolicySet, WorkspacePolicies } from './policies.js';
import type { Principal } from '../auth/principal.js';
import { asAllUsers, withWorkspace } from '../auth/scope.js';

export interface PoliciesView {
  /** What the workspace stated itself (null: nothing, the defaults apply). */
  own: WorkspacePolicies | null;
  /** What compiles use: defaults, connector declarations, then the workspace's overrides. */
  effective: PolicySet;
  fingerprint: string;
  /** What ingest does with an item holding a secret: `redact` (default) or `refuse`. */
  secrets: SecretsMode;
}

export interface PolicyChange extends PoliciesView {
  changed: boolean;
  /** Subjects whose memories the change can affect: rebuilt (queued, or here without a queue). */
  rebuild: { subjects: string[]; mode: 'queued' | 'compiled' | 'none'; results?: CompileResult[] };
}

export async function getPolicies(pool: Pool, principal: Principal): Promise<PoliciesView> {
  return withWorkspace(pool, principal, async (tx) => {
    const { own, set, fingerprint, secrets } = await loadPolicySet(tx, principal.workspace_id);
    return { own, effective: set, fingerprint, secrets };
  });
}

/** Predicates whose effective policy differs between two sets. */
export function changedPredicates(before: PolicySet, after: PolicySet): string[] {
  const names = new Set([...Object.keys(before.predicates), ...Object.keys(after.predicates)]);
  return [...names].filter((p) => canonicalJson(policyFor(before, p)) !== canonicalJson(policyFor(after, p))).sort();
}

/**
 * Subjects whose memories a change from one policy set to another can affect: those holding
 * memories of a predicate whose policy changed, or every subject when the defaults, the time
 * zone or the standing links need changed. Call with every user's rows visible.
 */
export async function subjectsAffected(tx: PoolClient, workspaceId: string, before: PolicySet, after: PolicySet): Promise<string[]> {
  if (canonicalJson(before) === canonicalJson(after)) return [];
  // The standing links need decides which keys fold together anywhere: like the defaults, it
  // reaches every subject.
  return reachesEverything(before, after) ? subjectsOfWorkspace(tx, workspaceId) : subjectsOfPredicates(tx, workspaceId, changedPredicates(before, after));
}

/** Whether a change of policies reaches every subject: the defaults, the time zone or `links` changed. */
export function reachesEverything(before: PolicySet, after: PolicySet): boolean {
  return (
    canonicalJson(before.defaults) !== canonicalJson(after.defaults) ||
    before.time_zone !== after.time_zone ||
    canonicalJson(before.links ?? null) !== canonicalJson(after.links ?? null)
  );
}

/**
 * Saves a workspace's policies and sets off the rebuilds they call for. Compiled state records
 * the fingerprint of the policies it was compiled under, and `compileSubject` rebuilds a
 * subject whose fingerprint differs — so a compile job per affected subject is enough, sent in
 * the transaction that saves the change (both or neither). Affected: subjects holding memories
 * of a predicate whose policy changed, or every subject when the defaults or the time zone did.
 * Unaffected subjects are stamped with the new fingerprint in the same transaction: their state is
 * what the new policies give.
 */
export async function putPolicies(pool: Pool, boss: PgBoss | null, principal: Principal, input: unknown, resolverHosts: readonly string[] = []): Promise<PolicyChange> {
  if (!atLeast(principal.role, 'maintainer')) throw new ForbiddenError(`only an owner or a maintainer may change policies, not ${aRole(principal.role)}`);
  // A resolver is checked before anything is saved: its host against the operator's list, its key against the caller.
  const stated = WorkspacePolicies.safeParse(input);
  if (stated.success && stated.data.resolver) await checkResolverPolicy(pool, principal, stated.data.resolver, resolverHosts);
  const ws = principal.workspace_id;
  const saved = await withWorkspace(pool, principal, async (tx) => {
    // After the compiles and writes under way, whose memories it then finds; before any after it.
    await lockPolicies(tx, ws);
    const before = await loadPolicySet(tx, ws);
    await savePolicySet(tx, ws, input);
    const after = await loadPolicySet(tx, ws);
    // Every user's subjects are rebuilt; the answer names only those this key may see.
    const affected = await asAllUsers(tx, () => subjectsAffected(tx, ws, before.set, after.set));
    // The others' state is the same under the new policies: stamped so, their next compile is
    // the no-op it would have been, not a rebuild counting every memory as created.
    if (before.fingerprint !== after.fingerprint) await asAllUsers(tx, () => restampSubjects(tx, ws, before.fingerprint, after.fingerprint, COMPILER_VERSION, affected));
    if (boss && affected.length > 0) await enqueueRebuilds(boss, tx, ws, affected);
    const visible = new Set(await subjectsOfWorkspace(tx, ws));
    return {
      own: after.own,
      effective: after.set,
      fingerprint: after.fingerprint,
      secrets: after.secrets,
      changed: before.fingerprint !== after.fingerprint,
      affected,
      subjects: affected.filter((s) => visible.has(s)),
    };
  });
  const { subjects, affected, ...view } = saved;
  if (affected.length === 0) return { ...view, rebuild: { subjects, mode: 'none' } };
  if (boss) return { ...view, rebuild: { subjects, mode: 'queued' } };
  // No queue (a CLI one-shot, a test): rebuild here, one subject at a time, each under its lock.
  const results: CompileResult[] = [];
  for (const subject of affected) {
    const result = await compileSubject(pool, ws, subject);
    if (subjects.includes(subject)) results.push(result);
  }
  return { ...view, rebuild: { subjects, mode: 'compiled', results } };
}


/**
 * One compile job per subject, at once (no debounce), keyed like ingest's so a compile already
 * queued for the subject absorbs it — it will see the new fingerprint and rebuild either way.
 */
async function enqueueRebuilds(boss: PgBoss, tx: PoolClient, workspaceId: string, subjects: readonly string[]): Promise<void> {
  for (const subject of subjects) {
    const data: CompileJobData = { workspace_id: workspaceId, subject };
    await boss.send(QUEUES.compile, data, { singletonKey: JSON.stringify([workspaceId, subject]), db: bossDb(tx) });
  }
}
