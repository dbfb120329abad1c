import { randomBytes, randomUUID } from 'node:crypto';
import { cleanString, ROLES, SourceId, type Role, sha256, UnauthorizedError, NotFoundError, ValidationError } from '@canon/core';
import {
  ensureWorkspace,
  findActiveApiKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  countApiKeys,
  type ApiKeyRecord,
  lockKeyBootstrap,
  type Pool,
  type PoolClient,
} from '@canon/store';
import { z } from 'zod';
import type { Principal } from './principal.js';
import { withSystem } from './scope.js';

const KEY_PREFIX = 'canon_';

export const CreateKeyInput = z.object({
  workspace: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, "_" and "-"'),
  role: z.enum(ROLES),
  user: cleanString(z.string().min(1).max(200)).optional(),
  label: cleanString(z.string().min(1).max(200)).optional(),
  /** Reserved sources the key may write: `--source github` for a GitHub connector's key. */
  sources: z.array(SourceId).max(32).optional(),
});
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

export interface CreatedKey {
  /** The secret, shown once; only its sha256 is stored. */
  key: string;
  record: ApiKeyRecord;
}

export function createApiKey(pool: Pool, input: CreateKeyInput): Promise<CreatedKey> {
  return withSystem(pool, (tx) => createApiKeyIn(tx, input));
}

async function createApiKeyIn(tx: PoolClient, input: CreateKeyInput): Promise<CreatedKey> {
  const parsed = CreateKeyInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ValidationError(`${issue.path.join('.')}: ${issue.message}`);
  }
  const { workspace, role, user, label } = parsed.data;
  const sources = [...new Set(parsed.data.sources ?? [])].sort();
  const secret = randomBytes(24).toString('base64url');
  const key = `${KEY_PREFIX}${secret}`;
  await ensureWorkspace(tx, workspace);
  const record = await insertApiKey(tx, {
    id: randomUUID(),
    workspace_id: workspace,
    role,
    user_id: user ?? null,
    key_hash: sha256(key),
    prefix: key.slice(0, KEY_PREFIX.length + 6),
    label: label ?? null,
    sources,
  });
  return { key, record };
}

export async function authenticate(pool: Pool, bearer: string | undefined): Promise<Principal> {
  if (!bearer) throw new UnauthorizedError();
  // Before the key is found its workspace is unknown: the one lookup that spans workspaces (as
  // canon_system, in one round trip).
  const record = await findActiveApiKey(pool, sha256(bearer));
  if (!record) throw new UnauthorizedError('unknown or revoked API key');
  return Object.freeze({
    workspace_id: record.workspace_id,
    role: record.role,
    user: record.user_id,
    key_id: record.id,
    sources: Object.freeze([...(record.sources ?? [])]),
  });
}

export function listKeys(pool: Pool, workspace?: string): Promise<ApiKeyRecord[]> {
  return withSystem(pool, (tx) => listApiKeys(tx, workspace));
}

export async function revokeKey(pool: Pool, id: string): Promise<ApiKeyRecord> {
  if (!z.uuid().safeParse(id).success) throw new ValidationError(`not a key id: ${id}`);
  const result = await withSystem(pool, (tx) => revokeApiKey(tx, id));
  if (!result.ok) throw new NotFoundError(`no API key ${id}`);
  return result.key;
}

/**
 * On a database with no key at all, creates the `default` workspace and one owner key so a
 * fresh install works; returns it (shown once), or null when keys already exist.
 */
export function bootstrapOwnerKey(pool: Pool): Promise<CreatedKey | null> {
  return withSystem(pool, async (tx) => {
    // Two processes starting on a fresh database must not both mint a key.
    await lockKeyBootstrap(tx);
    if ((await countApiKeys(tx)) > 0) return null;
    return createApiKeyIn(tx, { workspace: 'default', role: 'owner', label: 'bootstrap' });
  });
}

export type { Role };
