import { sha256 } from '@canon/core';

/**
 * The content-free tombstone of an erased episode (design §8): a hash of (workspace, source,
 * key) — enough to answer `erased` to a re-sync of the same key, nothing to recover it from.
 */
export function erasedKeyHash(workspaceId: string, source: string, idempotencyKey: string): string {
  return sha256(JSON.stringify([workspaceId, source, idempotencyKey]));
}

/**
 * The content-free name of a subject an erasure touched: the hash `erasures` keeps of a subject
 * target, so a proposal can ask whether its memory's revision may have come down without the
 * database keeping the subject's name.
 */
export function erasedSubjectHash(workspaceId: string, subject: string): string {
  return sha256(JSON.stringify([workspaceId, 'subject', subject]));
}
