import { z } from 'zod';
import { canonicalJson, lengthPrefixed, sha256 } from './hash.js';
import { compareStrings, normalizeText } from './normalize.js';

/**
 * The identity of a fact (design §3): workspace, scope (+ owner), subject, predicate and sorted
 * qualifiers. The value is outside the key, so "Tuesday" → "Thursday" changes one memory, while
 * `{env: staging}` and `{env: production}` are two memories.
 */
export const FactKey = z.object({
  workspace_id: z.string().min(1),
  scope: z.enum(['workspace', 'personal']),
  owner: z.string().min(1).nullable(),
  subject: z.string().min(1),
  predicate: z.string().min(1),
  qualifiers: z.record(z.string(), z.string()),
});
export type FactKey = z.infer<typeof FactKey>;

export class FactKeyError extends Error {}

export interface FactKeyParts {
  workspace_id: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  subject: string;
  predicate: string;
  qualifiers?: Record<string, string> | undefined;
}

/**
 * Builds a fact key with normalized predicate and qualifiers in sorted order. A personal key must
 * name its owner and a workspace key must not: the scope is part of the identity, so a personal
 * note and a workspace fact can never collapse into one memory whatever their wording.
 */
export function makeFactKey(parts: FactKeyParts): FactKey {
  if (parts.scope === 'personal' && !parts.owner) throw new FactKeyError('a personal fact key needs an owner');
  if (parts.scope === 'workspace' && parts.owner !== null) {
    throw new FactKeyError('a workspace fact key has no owner');
  }
  const predicate = normalizeText(parts.predicate);
  if (!predicate) throw new FactKeyError('a fact key needs a predicate');
  const qualifiers: Record<string, string> = {};
  const entries = Object.entries(parts.qualifiers ?? {})
    .map(([k, v]) => [normalizeText(k), normalizeText(v)] as const)
    .sort(([a], [b]) => compareStrings(a, b));
  for (const [k, v] of entries) qualifiers[k] = v;
  return {
    workspace_id: parts.workspace_id,
    scope: parts.scope,
    owner: parts.scope === 'personal' ? parts.owner : null,
    subject: parts.subject,
    predicate,
    qualifiers,
  };
}

/**
 * The stable string form of a key: RFC 8785 JSON of a fixed-position array. Unambiguous (no
 * separator a value could contain) and stable forever, since the store indexes claims by it.
 */
export function factKeyString(key: FactKey): string {
  return canonicalJson(['fk/1', key.workspace_id, key.scope, key.owner, key.subject, key.predicate, key.qualifiers]);
}

/** A fact key back from its stable string form (`factKeyString`), members in `FactKey`'s order. */
export function parseFactKey(key: string): FactKey {
  const [, workspace_id, scope, owner, subject, predicate, qualifiers] = JSON.parse(key) as [string, string, 'workspace' | 'personal', string | null, string, string, Record<string, string>];
  return { workspace_id, scope, owner, subject, predicate, qualifiers };
}

/** A memory's id: 32 hex digits of SHA-256 over (workspace, key string). Never changes for a key. */
export function memoryId(workspaceId: string, key: FactKey): string {
  return sha256(lengthPrefixed(['memory/1', workspaceId, factKeyString(key)])).slice(0, 32);
}
