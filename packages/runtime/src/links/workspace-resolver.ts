import { atLeast, ForbiddenError, ValidationError } from '@canon/core';
import { findActiveApiKeyById, getPolicySetRow, type Pool } from '@canon/store';
import { DEFAULT_RESOLVER_TIMEOUT_MS } from '../ops/config.js';
import { log } from '../ops/log.js';
import { WorkspacePolicies, type ResolverPolicy } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { withSystem } from '../auth/scope.js';
import type { ResolverSettings } from './resolver.js';

/** Whether the operator lets a workspace's resolver live at this URL (`CANON_RESOLVER_HOSTS`). */
export function resolverHostAllowed(url: string, hosts: readonly string[]): boolean {
  const u = new URL(url);
  const host = u.host.toLowerCase();
  const name = u.hostname.toLowerCase();
  return hosts.includes(host) || hosts.includes(name);
}

/**
 * Checks a resolver a workspace states in `PUT /v1/policies`: its host is one the operator
 * allows, and its key is an active key of the workspace whose role is not above the caller's (a
 * maintainer cannot make a resolver speak with an owner's standing).
 */
export async function checkResolverPolicy(pool: Pool, principal: Principal, resolver: ResolverPolicy, hosts: readonly string[]): Promise<void> {
  if (!resolverHostAllowed(resolver.url, hosts)) {
    throw new ValidationError(
      hosts.length === 0
        ? 'resolver.url: this server lets no workspace choose a resolver host (its operator lists them in CANON_RESOLVER_HOSTS)'
        : `resolver.url: ${new URL(resolver.url).host} is not a resolver host this server allows (CANON_RESOLVER_HOSTS)`,
      [{ index: 0, path: 'resolver.url', message: 'host not allowed' }],
    );
  }
  const key = await withSystem(pool, (tx) => findActiveApiKeyById(tx, principal.workspace_id, resolver.key_id));
  if (!key) throw new ValidationError(`resolver.key_id: no active API key ${resolver.key_id} in this workspace`, [{ index: 0, path: 'resolver.key_id', message: 'no such active key' }]);
  if (!atLeast(principal.role, key.role)) throw new ForbiddenError(`a ${principal.role} cannot give a resolver the standing of a ${key.role} key`);
  // The resolver's answers are logged as its key's user's statements: only an owner, who runs the
  // workspace's keys, may have it write in another user's name.
  if (principal.role !== 'owner' && key.user_id !== null && key.user_id !== principal.user) {
    throw new ForbiddenError(`a ${principal.role} may give a resolver a key without a user or of their own, not one of user ${key.user_id}: its answers would be logged as that user's`);
  }
}

/**
 * The resolver a workspace stated, as the compile job asks it: null when none is stated, its key
 * was revoked, or its host is no longer allowed (logged: the operator narrowed the list).
 */
export async function workspaceResolver(pool: Pool, workspaceId: string, hosts: readonly string[]): Promise<{ principal: Principal; settings: ResolverSettings } | null> {
  return withSystem(pool, async (tx) => {
    const row = await getPolicySetRow(tx, workspaceId);
    const parsed = row === null ? null : WorkspacePolicies.safeParse(row);
    const resolver = parsed?.success ? parsed.data.resolver : undefined;
    if (!resolver) return null;
    if (!resolverHostAllowed(resolver.url, hosts)) {
      log().warn({ event: 'resolver_host_not_allowed', workspace_id: workspaceId }, "a workspace's resolver host is no longer allowed; not asked");
      return null;
    }
    const key = await findActiveApiKeyById(tx, workspaceId, resolver.key_id);
    if (!key) return null;
    const principal: Principal = Object.freeze({ workspace_id: key.workspace_id, role: key.role, user: key.user_id, key_id: key.id, sources: Object.freeze([...(key.sources ?? [])]) });
    return { principal, settings: { url: resolver.url, timeoutMs: resolver.timeout_ms ?? DEFAULT_RESOLVER_TIMEOUT_MS } };
  });
}
