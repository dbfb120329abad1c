import {
  cleanString,
  CanonError,
  canWrite,
  ForbiddenError,
  minStanding,
  ValidationError,
  parseInput,
  ROLE_STANDING,
  view,
  compareInstants,
  canonicalJson,
  KeyConflictError,
  normalizeValue,
  type ClaimRef,
  type Episode,
  type EvidenceRef,
  type FactKey,
} from '@canon/core';
import { randomUUID } from 'node:crypto';
import { conflictedMemories, findEpisodesByKeys, type Pool } from '@canon/store';
import { z } from 'zod';
import type { CompileResult } from '../compile/compile.js';
import type { Principal } from '../auth/principal.js';
import { decisionOf, type ProposalResult } from './proposals.js';
import { memoryDetail, visibleTo, type MemoryDetail } from '../recall/recall.js';
import { withWorkspace } from '../auth/scope.js';
import { appendAndCompile, withMemorySubject } from '../compile/subject-write.js';

export interface ConflictSide {
  value: unknown;
  standing: number;
  valid_from: string;
  sources: Array<Pick<EvidenceRef, 'source' | 'idempotency_key' | 'index' | 'source_ref' | 'role' | 'occurred_at' | 'text'>>;
}

/** An open disagreement: a memory whose view now holds two or more values at once. */
export interface OpenConflict {
  /** The memory holding the disagreement: a conflict is addressed by its memory. */
  memory_id: string;
  subject: string;
  key: string;
  predicate: string;
  qualifiers: Record<string, string>;
  scope: 'workspace' | 'personal';
  revision: number;
  etag: string;
  needs_verification: true;
  /** The least role that may resolve it: the policy's minimum and every side's standing. */
  required_standing: number;
  sides: ConflictSide[];
}

export const ConflictQuery = z.object({
  subject: cleanString(z.string().min(1).max(512)).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** `next` of the page before. */
  after: z.string().min(1).max(2048).optional(),
});

/** A page of open conflicts in subject and key order; `next` names the page after, null at the end. */
export interface ConflictPage {
  conflicts: OpenConflict[];
  next: string | null;
}

/** A page's place: the subject and key of its last row, as an opaque string. */
const conflictCursor = (subject: string, key: string) => Buffer.from(JSON.stringify([subject, key])).toString('base64url');

const CursorParts = z.tuple([z.string(), z.string()]);

function afterOf(cursor: string | undefined): readonly [string, string] | null {
  if (cursor === undefined) return null;
  try {
    return CursorParts.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new ValidationError('after: not a cursor this list gave (pass its `next`)', [{ index: 0, path: 'after', message: 'not a cursor' }]);
  }
}

export const ResolveInput = z.strictObject({
  value: z.unknown().refine((v) => v !== undefined, { message: 'required' }),
  reason: cleanString(z.string().min(1).max(2000)),
  /** Names the resolution for retries; default: a key of its own (a retry names it to be one). */
  idempotency_key: cleanString(z.string().min(1).max(512)).optional(),
});
export type ResolveInput = z.input<typeof ResolveInput>;

export async function listConflicts(pool: Pool, principal: Principal, raw: unknown): Promise<ConflictPage> {
  const q = parseInput(ConflictQuery, raw);
  const after = afterOf(q.after);
  const now = new Date().toISOString();
  return withWorkspace(pool, principal, async (tx) => {
    // One row more than the page says whether another follows; the cursor is of the rows read, so a
    // row this key may not see, or no longer in dispute by the view, moves the page on all the same.
    const rows = await conflictedMemories(tx, principal.workspace_id, q.subject ?? null, q.limit + 1, now, after);
    const page = rows.slice(0, q.limit);
    const out: OpenConflict[] = [];
    for (const row of page) {
      if (!visibleTo(principal, row.timeline)) continue;
      const conflict = openConflict(row.id, row.subject, row.revision, row.etag, row.timeline, now);
      if (conflict) out.push(conflict);
    }
    const last = page[page.length - 1];
    return { conflicts: out, next: rows.length > q.limit && last ? conflictCursor(last.subject, last.key) : null };
  });
}

function openConflict(id: string, subject: string, revision: number, etag: string, t: MemoryDetail['timeline'], at: string): OpenConflict | null {
  const v = view(t, at);
  if (v.status !== 'conflicted') return null;
  return {
    memory_id: id,
    subject,
    key: t.key,
    predicate: t.fact_key.predicate,
    qualifiers: t.fact_key.qualifiers,
    scope: t.fact_key.scope,
    revision,
    etag,
    needs_verification: true,
    required_standing: Math.max(minStanding(t.policy), ...v.conflict.map((s) => s.standing)),
    sides: v.conflict.map((s) => ({
      value: s.value,
      standing: s.standing,
      valid_from: s.valid_from,
      sources: s.evidence.map((e) => ({
        source: e.source,
        idempotency_key: e.idempotency_key,
        index: e.index,
        source_ref: e.source_ref,
        role: e.role,
        occurred_at: e.occurred_at,
        text: e.text,
      })),
    })),
  };
}

/**
 * Resolves an open conflict (design §4 "resolution"): a correction episode whose one claim
 * names, in `settles`, the claims behind every side, written and compiled in one transaction
 * under the subject's lock. Only a role with sufficient standing — the policy's minimum and at
 * least every side's — may settle it; the fold would overrule anything less, so refuse early.
 */
function sameResolution(prior: Episode, subject: string, fk: FactKey, input: { value: unknown; reason: string }): boolean {
  const claims = (prior.body as { claims?: unknown }).claims;
  const claim = Array.isArray(claims) && claims.length === 1 ? (claims[0] as Record<string, unknown>) : null;
  return (
    prior.kind === 'correction' &&
    prior.subject === subject &&
    claim !== null &&
    claim['predicate'] === fk.predicate &&
    canonicalJson(claim['qualifiers'] ?? {}) === canonicalJson(fk.qualifiers) &&
    canonicalJson(normalizeValue(claim['value'] ?? null)) === canonicalJson(normalizeValue(input.value ?? null)) &&
    (prior.body as { reason?: unknown }).reason === input.reason
  );
}

export async function resolveConflict(
  pool: Pool,
  principal: Principal,
  memoryId: string,
  raw: unknown,
): Promise<{ outcome: 'applied' | 'duplicate'; episode_id: string; decision: ProposalResult['decision']; compiled: CompileResult | null; memory: MemoryDetail }> {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot resolve conflicts`);
  const input = parseInput(ResolveInput, raw);
  return withMemorySubject(pool, principal, memoryId, async (ctx) => {
    const { memory } = ctx;
    // Without a key of the caller's, one no other writer can take first: a key made of the memory
    // and its revision was in every writer's reach, and taken (in a personal scope the resolver
    // cannot see) it blocked the resolution for good.
    const key = input.idempotency_key ?? `resolve:${memory.id}:${memory.revision}:${randomUUID()}`;
    const now = new Date().toISOString();
    const conflict = openConflict(memory.id, memory.subject, memory.revision, memory.etag, memory.timeline, now);
    if (input.idempotency_key !== undefined) {
      // A retry of a resolution that committed: answer with the memory as it is now.
      const [prior] = await findEpisodesByKeys(ctx.tx, principal.workspace_id, [{ source: 'api', idempotency_key: key }]);
      if (prior) {
        // Only a resolution of this memory to this value is this one sent again; any other episode
        // under the key is another write's (a key another writer took first is no retry of ours).
        if (!sameResolution(prior, memory.subject, memory.timeline.fact_key, input)) {
          throw new KeyConflictError([{ index: 0, source: 'api', idempotency_key: key, episode_id: prior.id }]);
        }
        const current = await memoryDetail(ctx.tx, principal, memoryId, now);
        return { outcome: 'duplicate' as const, episode_id: prior.id, decision: decisionOf(current, key), compiled: null, memory: current };
      }
    }
    if (!conflict) throw new CanonError('conflict', `memory ${memoryId} has no open conflict to resolve`, { memory_id: memoryId });
    if (ROLE_STANDING[principal.role] < conflict.required_standing) {
      throw new ForbiddenError(
        `resolving this conflict needs standing ${conflict.required_standing} (the policy's minimum and every side's); the ${principal.role} role has ${ROLE_STANDING[principal.role]}`,
      );
    }
    // One reference per side first, so the 100-reference limit never leaves a side unnamed.
    const refs: ClaimRef[] = [];
    const seen = new Set<string>();
    const push = (e: ClaimRef) => {
      const k = JSON.stringify([e.source, e.idempotency_key, e.index]);
      if (!seen.has(k) && refs.length < 100) refs.push({ source: e.source, idempotency_key: e.idempotency_key, index: e.index }), seen.add(k);
    };
    for (const side of conflict.sides) if (side.sources[0]) push(side.sources[0]);
    for (const side of conflict.sides) side.sources.forEach(push);
    // And every value held in the dispute since it began, though its author changed it since: left
    // out, it would stay in the history beside the winner, a dispute no one had (design §4:
    // after a resolution the winner holds at any time in the conflict).
    for (const ref of earlierSides(memory.timeline, now)) push(ref);

    const fk = memory.timeline.fact_key;
    const written = await appendAndCompile(ctx, principal, {
      source: 'api',
      idempotency_key: key,
      subject: memory.subject,
      scope: fk.scope,
      kind: 'correction',
      occurred_at: now,
      body: {
        reason: input.reason,
        claims: [{ predicate: fk.predicate, qualifiers: fk.qualifiers, value: input.value, correction: true, settles: refs }],
      },
    });
    const after = await memoryDetail(ctx.tx, principal, memoryId, new Date().toISOString());
    return { outcome: 'applied' as const, episode_id: written.episode_id, decision: decisionOf(after, key), compiled: written.compiled, memory: after };
  });
}

/**
 * The claims behind the values held during the dispute open at `now`, from the instant it began:
 * the dispute runs back while two or more values are held (as `view` reads them) at each earlier
 * boundary of the values. One sweep over the boundaries, counted by binary search: a key changed
 * thousands of times inside one long dispute costs O(n log n), not a view per boundary.
 */
function earlierSides(t: MemoryDetail['timeline'], now: string): EvidenceRef[] {
  const held = t.values.filter((v) => v.status !== 'overruled' && v.superseded_by !== 'correction' && (v.valid_to === null || compareInstants(v.valid_from, v.valid_to) < 0));
  const starts = held.map((v) => v.valid_from).sort(compareInstants);
  const ends = held.flatMap((v) => (v.valid_to === null ? [] : [v.valid_to])).sort(compareInstants);
  // How many of `sorted` are at or before `at`.
  const upTo = (sorted: readonly string[], at: string) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareInstants(sorted[mid]!, at) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const boundaries = [...new Set([...starts, ...ends])].filter((b) => compareInstants(b, now) <= 0).sort((a, b) => compareInstants(b, a));
  let start = now;
  for (const b of boundaries) {
    if (upTo(starts, b) - upTo(ends, b) < 2) break;
    start = b;
  }
  return t.values
    .filter((v) => v.status !== 'overruled' && v.superseded_by !== 'correction')
    .filter((v) => compareInstants(v.valid_from, now) <= 0 && (v.valid_to === null || compareInstants(v.valid_to, start) > 0))
    .flatMap((v) => v.evidence);
}
