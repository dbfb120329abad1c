import {
  canonicalJson,
  canWrite,
  cleanString,
  FactKey,
  factKeyString,
  ForbiddenError,
  KeyConflictError,
  LINK_KIND,
  linkMinStanding,
  NotFoundError,
  SourceId,
  standingFor,
  ValidationError,
  parseInput,
} from '@canon/core';
import { factKeyOfMemoryId, findEpisodesByKeys, lockSubject, memoriesByIds, topStandingsOfMemories, withLockTimeout, type Pool, type Sql } from '@canon/store';
import { z } from 'zod';
import { compilePendingInTransaction, type CompileResult } from '../compile/compile.js';
import { loadPolicySet } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { memoryDetail, visibleTo, type MemoryDetail } from '../recall/recall.js';
import { asAllUsers, withWorkspaceWriting } from '../auth/scope.js';
import { appendAndCompile, busyWhileLocked, SUBJECT_LOCK_TIMEOUT_MS } from '../compile/subject-write.js';

const shortText = cleanString(z.string().min(1).max(512));
const MemoryId = cleanString(z.string().min(1).max(128));

/**
 * A link (design §1): that two memories of one subject and scope are one fact (`same: true`) or
 * distinct (`same: false`). Stored as an episode of kind `link` naming both fact keys; compiled
 * at once. Below member standing (an agent's key, a resolver configured as an agent) it is a
 * proposal: recorded and shown on the pair, never applied.
 */
export const LinkInput = z.strictObject({
  memories: z.tuple([MemoryId, MemoryId]),
  same: z.boolean(),
  idempotency_key: shortText,
  reason: cleanString(z.string().min(1).max(2000)).optional(),
});
export type LinkInput = z.input<typeof LinkInput>;

export interface LinkResult {
  /** `linked` / `unlinked` stated with the standing links need; `proposed` below it; `duplicate` for a retried key. */
  outcome: 'linked' | 'unlinked' | 'proposed' | 'duplicate';
  episode_id: string;
  /**
   * Whether the pair is now as this link says (one memory for `same: true`, two for `false`): not
   * when it is a proposal, nor when a statement of higher standing on the pair (an owner's link
   * that a member's `same: false` cannot undo) or a link through a third key decides otherwise.
   */
  in_force: boolean;
  /** The fact keys the link names, as stored. */
  keys: [string, string];
  compiled: CompileResult | null;
  /** The memory of the first id, after (the merged one when linked). */
  memory: MemoryDetail;
}

/** Where a link is recorded: its own source, so its keys never meet an ingest's. */
export const LINK_SOURCE = 'api';

/** The fact key behind a memory id — a memory's own, or that of a key linked into another. */
async function keyOf(sql: Sql, principal: Principal, id: string): Promise<FactKey> {
  const row = (await memoriesByIds(sql, principal.workspace_id, [id])).get(id);
  const key = row ? row.timeline.fact_key : await factKeyOfMemoryId(sql, principal.workspace_id, id);
  const parsed = key ? FactKey.safeParse(key) : null;
  if (!parsed?.success || !visibleTo(principal, { fact_key: parsed.data })) throw new NotFoundError(`no memory ${id}`);
  return parsed.data;
}

export async function linkMemories(pool: Pool, principal: Principal, raw: unknown, options: { source?: string } = {}): Promise<LinkResult> {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot link memories`);
  const input = parseInput(LinkInput, raw);
  const source = SourceId.parse(options.source ?? LINK_SOURCE);
  const [first, second] = input.memories;
  if (first === second) throw new ValidationError('memories: name two different memories');
  return busyWhileLocked('the subject', () =>
    withWorkspaceWriting(pool, principal, async (tx) => {
      const a = await keyOf(tx, principal, first);
      const b = await keyOf(tx, principal, second);
      if (a.subject !== b.subject) throw new ValidationError('memories: a link joins two memories of one subject; these are of different subjects');
      if (a.scope !== b.scope || a.owner !== b.owner) throw new ValidationError('memories: a link joins two memories of one scope');
      if (factKeyString(a) === factKeyString(b)) throw new ValidationError('memories: both ids name one fact key');
      const keys: [string, string] = [factKeyString(a), factKeyString(b)];
      const link = { keys: [a, b], same: input.same, ...(input.reason ? { reason: input.reason } : {}) };

      await withLockTimeout(tx, SUBJECT_LOCK_TIMEOUT_MS, () => lockSubject(tx, principal.workspace_id, a.subject));
      const policies = await loadPolicySet(tx, principal.workspace_id);
      // In force only from a writer standing as high as every claim of both keys (`linkState`).
      const tops = await topStandingsOfMemories(tx, principal.workspace_id, [first, second]);
      const inForce = standingFor(principal.role) >= Math.max(linkMinStanding(policies.set), tops.get(first) ?? 0, tops.get(second) ?? 0);
      // The answer's memory (the first id's, after the compile) and whether the pair is as the link
      // says: one memory names every key of its group, itself and the ones linked into it.
      const answer = async () => {
        const memory = await memoryDetail(tx, principal, first, new Date().toISOString());
        const joined = memory.timeline.key === keys[1] || (memory.timeline.linked ?? []).includes(keys[1]);
        return { memory, in_force: inForce && joined === input.same };
      };

      const [prior] = await findEpisodesByKeys(tx, principal.workspace_id, [{ source, idempotency_key: input.idempotency_key }]);
      if (prior) {
        // A retry after a lost response answers with what the committed link did.
        if (prior.kind !== LINK_KIND || canonicalJson((prior.body as { link?: unknown }).link ?? null) !== canonicalJson(JSON.parse(JSON.stringify(link)))) {
          throw new KeyConflictError([{ index: 0, source, idempotency_key: input.idempotency_key, episode_id: prior.id }]);
        }
        await asAllUsers(tx, () => compilePendingInTransaction(tx, principal.workspace_id, a.subject, policies));
        const { memory, in_force } = await answer();
        return { outcome: 'duplicate' as const, episode_id: prior.id, in_force, keys, compiled: null, memory };
      }
      await asAllUsers(tx, () => compilePendingInTransaction(tx, principal.workspace_id, a.subject, policies));
      const memory = (await memoriesByIds(tx, principal.workspace_id, [first])).get(first);
      const written = await appendAndCompile({ tx, policies, memory: memory! }, principal, {
        source,
        idempotency_key: input.idempotency_key,
        subject: a.subject,
        scope: a.scope,
        kind: LINK_KIND,
        occurred_at: new Date().toISOString(),
        body: { link },
      });
      const outcome = !inForce ? 'proposed' : input.same ? 'linked' : 'unlinked';
      const { memory: after, in_force } = await answer();
      return { outcome, episode_id: written.episode_id, in_force, keys, compiled: written.compiled, memory: after };
    }),
  );
}
