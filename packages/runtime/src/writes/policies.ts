import { DEFAULT_POLICY_SET, DEFAULT_SECRETS_MODE, PolicySet, policyFingerprint, SecretsMode, parseInput, type Policy } from '@canon/core';
import { GIT_PREDICATES } from '@canon/connector-git';
import { GITHUB_PREDICATES } from '@canon/connector-github';
import { WORKSPACE_PREDICATES } from '@canon/connector-workspace';
import { getPolicySetRow, putPolicySetRow, type Sql } from '@canon/store';
import { z } from 'zod';

/**
 * Predicates the built-in connectors declare (design §6). They are part of every workspace's
 * policy set, under anything the workspace states itself, so registering a connector never
 * changes a fingerprint and a workspace can still override a declaration.
 */
export const DECLARED_PREDICATES: Readonly<Record<string, Policy>> = Object.freeze({
  ...GIT_PREDICATES,
  ...WORKSPACE_PREDICATES,
  ...GITHUB_PREDICATES,
});

/**
 * A workspace's own statement: overrides of the defaults and of declared predicates, and what
 * ingest does with a secret (`secrets`, default `redact`). `secrets` acts at the door, before
 * anything is stored, so it is not part of the policy set compiles use nor of its fingerprint:
 * changing it rebuilds nothing.
 */
/**
 * A workspace's own resolver (design §1): where Canon asks about its candidate pairs, and the id
 * of the workspace's API key whose standing the answers carry (an agent's: proposals; a member's:
 * links in force). A key id, never a secret: revoking the key stops the resolver. Like `secrets`,
 * outside the fingerprint: it changes no compiled state, only who is asked next.
 */
export const ResolverPolicy = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  key_id: z.uuid(),
  timeout_ms: z.number().int().min(100).max(120_000).optional(),
});
export type ResolverPolicy = z.infer<typeof ResolverPolicy>;

export const WorkspacePolicies = PolicySet.partial().extend({ secrets: SecretsMode.optional(), resolver: ResolverPolicy.optional() });
export type WorkspacePolicies = typeof WorkspacePolicies._zod.output;

export function effectivePolicySet(own: WorkspacePolicies | null): PolicySet {
  return Object.freeze({
    defaults: own?.defaults ?? DEFAULT_POLICY_SET.defaults,
    predicates: { ...DECLARED_PREDICATES, ...(own?.predicates ?? {}) },
    time_zone: own?.time_zone ?? DEFAULT_POLICY_SET.time_zone,
    // Only when stated: a workspace that never set it keeps the fingerprint it had.
    ...(own?.links ? { links: own.links } : {}),
  });
}

export async function loadPolicySet(
  sql: Sql,
  workspaceId: string,
): Promise<{ set: PolicySet; fingerprint: string; own: WorkspacePolicies | null; secrets: SecretsMode }> {
  return policiesFromRow(await getPolicySetRow(sql, workspaceId));
}

/** The effective policies of a workspace from its stored row (null: none stored). */
export function policiesFromRow(row: unknown | null): { set: PolicySet; fingerprint: string; own: WorkspacePolicies | null; secrets: SecretsMode } {
  const own = row === null ? null : WorkspacePolicies.parse(row);
  const set = effectivePolicySet(own);
  return { set, fingerprint: policyFingerprint(set), own, secrets: own?.secrets ?? DEFAULT_SECRETS_MODE };
}

/** What ingest does with an item holding a secret in this workspace. */
export async function loadSecretsMode(sql: Sql, workspaceId: string): Promise<SecretsMode> {
  const row = await getPolicySetRow(sql, workspaceId);
  if (row === null) return DEFAULT_SECRETS_MODE;
  return WorkspacePolicies.parse(row).secrets ?? DEFAULT_SECRETS_MODE;
}

export async function savePolicySet(sql: Sql, workspaceId: string, input: unknown): Promise<WorkspacePolicies> {
  const policies = parseInput(WorkspacePolicies, input);
  await putPolicySetRow(sql, workspaceId, policies);
  return policies;
}
