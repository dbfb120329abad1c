import {
  cleanString,
  canonicalJson,
  canWrite,
  ForbiddenError,
  Instant,
  KeyConflictError,
  linkOf,
  normalizeValue,
  PreconditionFailedError,
  sameRef,
  ValidationError,
  valueKey,
  view,
  parseInput,
  type Decision,
} from '@canon/core';
import { findEpisodesByKeys, linkEpisodesOfSubject, rebuiltByErasure, type Pool, type Sql } from '@canon/store';
import { erasedSubjectHash } from '../ingest/erased-key.js';
import { z } from 'zod';
import type { CompileResult } from '../compile/compile.js';
import type { Principal } from '../auth/principal.js';
import { memoryDetail, type MemoryDetail } from '../recall/recall.js';
import { appendAndCompile, withMemorySubject, type SubjectWriteContext } from '../compile/subject-write.js';

const shortText = cleanString(z.string().min(1).max(512));

/**
 * A conditional change of one memory (design §10): stored as an episode of source `api` whose
 * one structured claim is on the memory's fact key, compiled at once. `value` equal to the
 * current value with `conditions` enriches it; a different value is a change effective now (or
 * at `effective_from`), or a correction with `correction: true`; `retract` ends the value.
 */
export const ProposalInput = z
  .strictObject({
    expected_revision: z.number().int().min(0).optional(),
    idempotency_key: shortText,
    value: z.unknown().optional(),
    conditions: z.array(shortText).max(100).optional(),
    retract: z.boolean().optional(),
    correction: z.boolean().optional(),
    effective_from: Instant.optional(),
    reason: cleanString(z.string().min(1).max(2000)),
  })
  .refine((p) => p.value !== undefined || p.conditions !== undefined || p.retract === true, {
    message: 'give value, conditions or retract: true',
  })
  .refine((p) => !(p.retract === true && p.conditions !== undefined), { message: 'retract takes no conditions' });
export type ProposalInput = z.input<typeof ProposalInput>;

export interface ProposalResult {
  /** `applied` the first time; `duplicate` for a retry of a committed proposal (same key). */
  outcome: 'applied' | 'duplicate';
  episode_id: string;
  /** What the fold made of the proposed claim: enriches, changes, corrects, overruled, disputes … */
  decision: Pick<Decision, 'kind' | 'reason' | 'target'> | null;
  compiled: CompileResult | null;
  memory: MemoryDetail;
}

/** `"abc"` or `W/"abc"` → `abc`. */
export function parseEtag(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const m = /^\s*(W\/)?"([^"]{1,200})"\s*$/.exec(header);
  if (!m) throw new ValidationError('If-Match: expected a quoted ETag such as "3f2a…"');
  // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag matches no ETag, so it stays marked.
  return m[1] ? `W/${m[2]}` : m[2];
}

/** Whether a link statement of the subject (in force or not, linking or unlinking) names this key. */
async function namedByLink(sql: Sql, workspaceId: string, subject: string, key: string): Promise<boolean> {
  for (const e of await linkEpisodesOfSubject(sql, workspaceId, subject)) {
    const link = linkOf(e);
    if (link && (link.a === key || link.b === key)) return true;
  }
  return false;
}

export async function proposeChange(
  pool: Pool,
  principal: Principal,
  memoryId: string,
  raw: unknown,
  precondition: { if_match?: string | undefined } = {},
): Promise<ProposalResult> {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot propose changes`);
  const input = parseInput(ProposalInput, raw);
  const ifMatch = parseEtag(precondition.if_match);
  if (input.expected_revision === undefined && ifMatch === undefined) {
    throw new ValidationError('expected_revision: give it, or an If-Match header with the memory’s ETag');
  }
  // What the proposal is, without the clock: a retry compares this, not the whole envelope,
  // whose effective time was taken when the first attempt ran.
  const proposal = { memory_id: memoryId, expected_revision: input.expected_revision ?? null, if_match: ifMatch ?? null, ...input };

  return withMemorySubject(pool, principal, memoryId, async (ctx) => {
    const retried = await priorAttempt(ctx, principal, memoryId, input.idempotency_key, proposal);
    if (retried) return retried;

    const { memory } = ctx;
    // A revision counts the claims folded into the memory, and an unlink takes the other key's
    // away: a memory a link ever named can come back to a revision it had, holding something else,
    // and a proposal that expected the old one would pass. Its ETag never repeats.
    // So may one of a subject an erasure touched: the erased claims no longer count.
    const ws = memory.timeline.fact_key.workspace_id;
    const repeats =
      ifMatch !== undefined
        ? null
        : (await namedByLink(ctx.tx, ws, memory.subject, memory.key))
          ? 'was named by a link, and its revision can repeat after an unlink'
          : (await rebuiltByErasure(ctx.tx, ws, erasedSubjectHash(ws, memory.subject)))
            ? 'is of a subject an erasure touched, and its revision can repeat after one'
            : null;
    if (repeats !== null) {
      throw new ValidationError(
        `expected_revision: memory ${memoryId} ${repeats}; send If-Match with its ETag ("${memory.etag}", as GET /v1/memories/{id} gives it) instead`,
        [{ index: 0, path: 'expected_revision', message: 'not enough for a memory whose revision can repeat: send If-Match with its ETag' }],
      );
    }
    const stale =
      (input.expected_revision !== undefined && input.expected_revision !== memory.revision) || (ifMatch !== undefined && ifMatch !== memory.etag);
    if (stale) {
      const current = await memoryDetail(ctx.tx, principal, memoryId, new Date().toISOString());
      throw new PreconditionFailedError(
        `memory ${memoryId} is at revision ${memory.revision} (ETag "${memory.etag}"), not the one this proposal expected: re-read it and propose again`,
        { current_revision: memory.revision, current_etag: memory.etag, current },
      );
    }

    const now = new Date().toISOString();
    const fk = memory.timeline.fact_key;
    const claim: Record<string, unknown> = { predicate: fk.predicate, qualifiers: fk.qualifiers };
    if (input.retract) {
      claim['op'] = 'retract';
      if (input.value !== undefined) claim['value'] = input.value;
    } else {
      const currentValues = view(memory.timeline, now).current.map((v) => valueKey(v.value));
      let value = input.value;
      if (value === undefined) {
        // Conditions alone enrich the value in force; with none (or a conflict) there is nothing to enrich.
        if (currentValues.length !== 1) throw new ValidationError('value: the memory has no single current value to add conditions to; give value');
        value = view(memory.timeline, now).current[0]!.value;
      }
      claim['value'] = value;
      if (input.conditions !== undefined) claim['conditions'] = input.conditions;
      const same = currentValues.includes(valueKey(normalizeValue(value)));
      if (input.correction) claim['correction'] = true;
      // A different value is a change from now on: it needs an explicit time to replace the
      // current one (design §4), and "now" is when the proposer decided it.
      else if (input.effective_from !== undefined || !same) claim['effective_from'] = input.effective_from ?? now;
    }
    if (input.retract && !input.correction) claim['effective_from'] = input.effective_from ?? now;
    if (input.retract && input.correction) claim['correction'] = true;

    const written = await appendAndCompile(ctx, principal, {
      source: 'api',
      idempotency_key: input.idempotency_key,
      subject: memory.subject,
      scope: fk.scope,
      kind: 'proposal',
      occurred_at: now,
      body: { reason: input.reason, proposal, claims: [claim] },
    });
    const after = await memoryDetail(ctx.tx, principal, memoryId, new Date().toISOString());
    return { outcome: 'applied', episode_id: written.episode_id, decision: decisionOf(after, input.idempotency_key), compiled: written.compiled, memory: after };
  });
}

/**
 * A retry after a lost response: the key's episode is committed already. The same proposal
 * answers with the memory as it is now; a different one under the same key is a key conflict.
 */
async function priorAttempt(
  ctx: SubjectWriteContext,
  principal: Principal,
  memoryId: string,
  key: string,
  proposal: Record<string, unknown>,
): Promise<ProposalResult | null> {
  const [prior] = await findEpisodesByKeys(ctx.tx, principal.workspace_id, [{ source: 'api', idempotency_key: key }]);
  if (!prior) return null;
  const stored = (prior.body as { proposal?: unknown }).proposal;
  if (stored === undefined || canonicalJson(stored) !== canonicalJson(JSON.parse(JSON.stringify(proposal)))) {
    throw new KeyConflictError([{ index: 0, source: 'api', idempotency_key: key, episode_id: prior.id }]);
  }
  const memory = await memoryDetail(ctx.tx, principal, memoryId, new Date().toISOString());
  return { outcome: 'duplicate', episode_id: prior.id, decision: decisionOf(memory, key), compiled: null, memory };
}

export function decisionOf(memory: MemoryDetail, key: string): ProposalResult['decision'] {
  const ref = { source: 'api', idempotency_key: key, index: 0 };
  const d = memory.timeline.decisions.find((x) => sameRef(x.claim, ref));
  return d ? { kind: d.kind, reason: d.reason, target: d.target } : null;
}
