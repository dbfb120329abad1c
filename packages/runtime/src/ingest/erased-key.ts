import { sha256 } from '@canon/core';

/**
 * The content-free tombstone of an erased episode (design §8): a hash of (workspace, source,
 * key) — enough to answer `erased` to a re-sync of the same key, nothing to recover it from.
 */
export function erasedKeyHash(workspaceId: string, source: string, idempotencyKey: string): string {
  return sha256(JSON.stringify([workspaceId, source, idempotencyKey]));
}
