import {
  aRole,
  canWrite,
  canonicalEnvelope,
  contentHash,
  EpisodeInput,
  envelopeOf,
  ForbiddenError,
  KeyConflictError,
  LIMITS,
  LINK_KIND,
  linkFault,
  linkWorkspaceFault,
  subjectFault,
  readDocument,
  toEnvelope,
  ValidationError,
  CanonError,
  type Actor,
  type ClaimRef,
  type DecisionKind,
  type Envelope,
  type ItemIssue,
  type Redaction,
} from '@canon/core';
import { appendEpisodes, erasedKeysAmong, keyOf, type NewEpisode, type Pool, type PoolClient } from '@canon/store';
import { isReservedSource } from '../connectors/registry.js';
import { RESOLVER_SOURCE } from '../links/resolver-source.js';
import { withWorkspaceWriting } from '../auth/scope.js';
import { newEpisodeId } from './episode-id.js';
import { erasedKeyHash } from './erased-key.js';
import { loadSecretsMode } from '../writes/policies.js';
import type { Principal } from '../auth/principal.js';
import { redactEnvelopes } from './secrets.js';
import type { MemorySummary } from '../recall/recall.js';

export type ItemStatus = 'created' | 'duplicate' | 'erased' | 'refused';

/** What the compile did with one claim of an ingested episode, and the memory it went to. */
export interface ClaimDecision {
  /** The claim's index in its episode (a text's claims are numbered as the compiler read them). */
  claim: number;
  memory_id: string;
  kind: DecisionKind;
  reason: string;
  /** The claim this one acted on (the one it superseded, disputed, duplicated …), if any. */
  target: ClaimRef | null;
  /** The memory after the compile, as recall shows it. */
  memory: MemorySummary;
}

export interface IngestItemResult {
  index: number;
  status: ItemStatus;
  /** Null for an `erased` or `refused` item: nothing was written. */
  episode_id: string | null;
  /** Secrets replaced by a marker before the item was hashed and stored (absent: none). */
  redactions?: Redaction[];
  /** For a `refused` item: the rule that found a secret in it, and where. */
  rule?: string;
  path?: string;
  /** With `compile: 'wait'`: what the compile did with each of the item's claims. */
  decisions?: ClaimDecision[];
}

export interface IngestResult {
  items: IngestItemResult[];
  created: number;
  duplicates: number;
  /** Items whose key was erased earlier (design §8): answered `erased`, nothing written. */
  erased: number;
  /** Items that held a secret, stored with it replaced (`redactions` on the item). */
  redacted: number;
  /** Items that held a secret under a workspace's `secrets: "refuse"`: nothing written. */
  refused: number;
  /** Distinct subjects the batch wrote to (the ones a compile must visit). */
  subjects: string[];
  /**
   * Statements of the documents created that will give no fact, by reason (`ambiguous`: one
   * version stating two values for one key; `unparsed`; `too_many`), read with the compiler's
   * extractor; empty when none.
   */
  statements: Record<string, number>;
}

/**
 * Work to do inside the ingest transaction once the rows are in (and marked pending): compile
 * jobs for what was created, a connector's cursor. Called even when nothing was created.
 */
export type AfterAppend = (tx: PoolClient, created: Array<{ id: string; envelope: Envelope }>) => Promise<void>;

/** How many of the episodes a batch created are of each subject: each is marked as waiting for its compile. */
export function markedBySubject(created: ReadonlyArray<{ envelope: Envelope }>): Map<string, number> {
  const marked = new Map<string, number>();
  for (const c of created) marked.set(c.envelope.subject, (marked.get(c.envelope.subject) ?? 0) + 1);
  return marked;
}

/**
 * Validates every item, then appends the batch in one transaction: all of it, or — on any
 * invalid item or key conflict — nothing at all.
 */
export async function ingestEpisodes(
  pool: Pool,
  principal: Principal,
  items: readonly unknown[],
  afterAppend?: AfterAppend,
): Promise<IngestResult> {
  const batch = await prepareBatch(principal, items);
  return withWorkspaceWriting(pool, principal, (tx) => appendBatch(tx, principal, batch, afterAppend));
}

/** A validated batch, de-duplicated within itself: what `appendBatch` writes. */
export interface PreparedBatch {
  /** Every item's envelope, its secrets already replaced. */
  envelopes: Envelope[];
  /** Per item: the secrets replaced in it. */
  redactions: Redaction[][];
  uniques: NewEpisode[];
  /** item index → index in `uniques` */
  uniqueIndexOf: number[];
}

/**
 * Checks the role, the size and every item, and replaces every secret they hold; throws before
 * anything is written. The envelopes are redacted before they are hashed or compared, so the
 * log never holds an original and a re-sent item is still a duplicate.
 */
export async function prepareBatch(principal: Principal, items: readonly unknown[]): Promise<PreparedBatch> {
  if (!canWrite(principal.role)) throw new ForbiddenError(`the ${principal.role} role cannot write episodes`);
  checkBatchSize(items.length);
  const redacted = await redactEnvelopes(parseBatch(principal, items));
  return dedupeBatch(redacted, () => ({ actor_key: principal.key_id }));
}

/**
 * An episode of another Canon's log, brought in by an import: what its source posted, and what
 * its log recorded beside that — the actor (role, user) and key that wrote it, and the
 * effective time it defaulted to when the source gave none.
 */
export interface ImportedItem {
  input: unknown;
  actor: Actor;
  actor_key: string | null;
  occurred_at_default: string | null;
}

/**
 * prepareBatch for an import (owners only): every item is validated and redacted like any
 * ingest, but keeps the actor its log recorded instead of taking the caller's, so its claims keep
 * their standing and author. Sources reserved for connectors are accepted: an owner restoring a
 * log restores its connectors' episodes too.
 */
export async function prepareImportBatch(principal: Principal, items: readonly ImportedItem[]): Promise<PreparedBatch> {
  if (principal.role !== 'owner') throw new ForbiddenError(`only an owner may import, not ${aRole(principal.role)}`);
  checkBatchSize(items.length);
  const envelopes = parseItems(items.map((item) => item.input), principal.workspace_id, (index) => items[index]!.actor);
  const redacted = await redactEnvelopes(envelopes);
  return dedupeBatch(redacted, (index) => ({ actor_key: items[index]!.actor_key, occurred_at_default: items[index]!.occurred_at_default }));
}

function checkBatchSize(n: number): void {
  if (n === 0) throw new ValidationError('the batch is empty');
  if (n > LIMITS.batchSize) throw new ValidationError(`a batch holds at most ${LIMITS.batchSize} episodes; this one has ${n}`);
}

/** Within the batch: the same key twice is a duplicate when identical, a conflict otherwise. */
function dedupeBatch(
  redacted: ReadonlyArray<{ envelope: Envelope; redactions: Redaction[] }>,
  stored: (index: number) => Pick<NewEpisode, 'actor_key' | 'occurred_at_default'>,
): PreparedBatch {
  const envelopes = redacted.map((r) => r.envelope);
  const redactions = redacted.map((r) => r.redactions);
  const firstByKey = new Map<string, number>();
  const uniques: NewEpisode[] = [];
  const uniqueIndexOf: number[] = []; // item index → index in `uniques`
  const inBatchConflicts: KeyConflictError['conflicts'] = [];
  envelopes.forEach((env, index) => {
    const k = keyOf(env.source, env.idempotency_key);
    const first = firstByKey.get(k);
    if (first === undefined) {
      firstByKey.set(k, uniques.length);
      uniqueIndexOf.push(uniques.length);
      uniques.push({ id: newEpisodeId(), envelope: env, content_hash: contentHash(env), ...stored(index) });
    } else {
      uniqueIndexOf.push(first);
      if (canonicalEnvelope(uniques[first]!.envelope) !== canonicalEnvelope(env)) {
        inBatchConflicts.push({ index, source: env.source, idempotency_key: env.idempotency_key, episode_id: null });
      }
    }
  });
  if (inBatchConflicts.length > 0) throw new KeyConflictError(inBatchConflicts);
  return { envelopes, redactions, uniques, uniqueIndexOf };
}

/**
 * Appends a prepared batch inside the caller's transaction (ingest's own, or a proposal's,
 * which compiles in the same one). Keys erased earlier are answered `erased` and skipped, and
 * so, under the workspace's `secrets: "refuse"`, are items that held a secret (`refused`); the
 * rest of the batch proceeds.
 */
export async function appendBatch(tx: PoolClient, principal: Principal, batch: PreparedBatch, afterAppend?: AfterAppend): Promise<IngestResult> {
  const { envelopes, uniqueIndexOf } = batch;
  // The first item of each unique key carries its redactions (identical items redact alike).
  const firstItem = new Map<number, number>();
  uniqueIndexOf.forEach((u, index) => {
    if (!firstItem.has(u)) firstItem.set(u, index);
  });
  const refusing = batch.redactions.some((r) => r.length > 0) && (await loadSecretsMode(tx, principal.workspace_id)) === 'refuse';
  const refusedRule = new Map<number, Redaction>(); // unique index → the first secret found
  if (refusing) {
    batch.uniques.forEach((_, u) => {
      const found = batch.redactions[firstItem.get(u)!]!;
      if (found.length > 0) refusedRule.set(u, found[0]!);
    });
  }
  const hashes = batch.uniques.map((u) => erasedKeyHash(principal.workspace_id, u.envelope.source, u.envelope.idempotency_key));
  const erasedHashes = await erasedKeysAmong(tx, principal.workspace_id, hashes);
  const uniques = batch.uniques.filter((_, i) => !erasedHashes.has(hashes[i]!) && !refusedRule.has(i));
  // Every episode created waits for a compile of its subject: marked in the insert's statement.
  const { inserted, existing } = await appendEpisodes(tx, principal.workspace_id, uniques, { pending: true });
  const stored = new Map(existing.map((e) => [keyOf(e.source, e.idempotency_key), e]));
  // Each item once: created, the same as stored (the hash a shortcut only, confirmed on the
  // canonical envelopes), or differing from what is stored under its key.
  const status: Array<{ status: 'created' | 'duplicate'; id: string } | null> = uniques.map((u) => {
    const k = keyOf(u.envelope.source, u.envelope.idempotency_key);
    if (inserted.has(k)) return { status: 'created', id: u.id };
    const prior = stored.get(k);
    if (prior && prior.content_hash === u.content_hash && canonicalEnvelope(envelopeOf(prior)) === canonicalEnvelope(u.envelope)) return { status: 'duplicate', id: prior.id };
    return null;
  });
  // A stored episode that differs may have been stored before a rule found the secret it holds (an
  // older Canon): sent again, it is the same episode once redacted — a re-sync after an upgrade,
  // not a key taken by other content. Every such prior redacted in one pass.
  const differing = uniques.filter((_, i) => status[i] === null);
  const priors = differing.flatMap((u) => stored.get(keyOf(u.envelope.source, u.envelope.idempotency_key)) ?? []);
  const redactedPrior = new Map<string, string>(); // prior id → its canonical envelope once redacted
  if (priors.length > 0) {
    (await redactEnvelopes(priors.map(envelopeOf))).forEach((r, i) => {
      if (r.redactions.length > 0) redactedPrior.set(priors[i]!.id, canonicalEnvelope(r.envelope));
    });
  }
  const conflicts: KeyConflictError['conflicts'] = [];
  uniques.forEach((u, i) => {
    if (status[i] !== null) return;
    const prior = stored.get(keyOf(u.envelope.source, u.envelope.idempotency_key));
    if (prior && redactedPrior.get(prior.id) === canonicalEnvelope(u.envelope)) {
      status[i] = { status: 'duplicate', id: prior.id };
      return;
    }
    conflicts.push({
      index: envelopes.indexOf(u.envelope),
      source: u.envelope.source,
      idempotency_key: u.envelope.idempotency_key,
      episode_id: prior?.id ?? null,
      // The key is in use by a row this key may not see (another user's personal episode).
      ...(prior ? {} : { taken: true as const }),
    });
  });
  if (conflicts.length > 0) throw new KeyConflictError(conflicts);
  if (afterAppend) {
    const created = uniques.filter((_, i) => status[i]?.status === 'created');
    await afterAppend(tx, created.map((u) => ({ id: u.id, envelope: u.envelope })));
  }
  const byKey = new Map(uniques.map((u, i) => [u, status[i]!]));
  const outcome = batch.uniques.map((u, i) =>
    refusedRule.has(i) ? { status: 'refused' as const, id: null } : (byKey.get(u) ?? { status: 'erased' as const, id: null }),
  );

  const claimed = new Set<number>();
  const results: IngestItemResult[] = envelopes.map((_, index) => {
    const u = uniqueIndexOf[index]!;
    const s = outcome[u]!;
    // Only the first occurrence of a key in the batch can be the one that created it.
    const status: ItemStatus =
      s.status === 'erased' || s.status === 'refused' ? s.status : s.status === 'created' && !claimed.has(u) ? 'created' : 'duplicate';
    claimed.add(u);
    const redactions = batch.redactions[index]!;
    if (status === 'refused') return { index, status, episode_id: null, ...refusedRule.get(u)! };
    return redactions.length > 0 ? { index, status, episode_id: s.id, redactions } : { index, status, episode_id: s.id };
  });
  const written = (r: IngestItemResult) => r.status === 'created' || r.status === 'duplicate';
  return {
    items: results,
    created: results.filter((r) => r.status === 'created').length,
    duplicates: results.filter((r) => r.status === 'duplicate').length,
    erased: results.filter((r) => r.status === 'erased').length,
    redacted: results.filter((r) => written(r) && r.redactions !== undefined).length,
    refused: results.filter((r) => r.status === 'refused').length,
    subjects: [...new Set(envelopes.filter((_, i) => written(results[i]!)).map((e) => e.subject))].sort(),
    statements: leftOut(envelopes.filter((e, i) => e.kind === 'document' && results[i]!.status === 'created')),
  };
}

/** What the compiler's extractor will leave out of these documents, summed by reason. */
function leftOut(documents: readonly Envelope[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const d of documents) {
    const path = typeof d.body['path'] === 'string' ? d.body['path'] : undefined;
    const text = typeof d.body.text === 'string' ? d.body.text : '';
    for (const [reason, n] of Object.entries(readDocument(path, text).dropped)) total[reason] = (total[reason] ?? 0) + n;
  }
  return total;
}

/** Parses every item into its envelope, or throws naming each invalid item; nothing is written. */
function parseItems(items: readonly unknown[], workspaceId: string, actorOf: (index: number) => Actor): Envelope[] {
  const issues: ItemIssue[] = [];
  const envelopes: Envelope[] = [];
  items.forEach((raw, index) => {
    const parsed = EpisodeInput.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        issues.push({ index, path: issue.path.join('.'), message: issue.message });
      }
      return;
    }
    try {
      envelopes.push(toEnvelope(parsed.data, workspaceId, actorOf(index)));
    } catch (err) {
      if (!(err instanceof CanonError)) throw err;
      issues.push({ index, path: 'scope', message: err.message });
    }
  });
  if (issues.length > 0) {
    const invalid = new Set(issues.map((i) => i.index)).size;
    // The message names the fields too (the first three), as every problem's `detail` does: a
    // client that prints only the message — MCP, the command line in process — still says which.
    const named = issues.slice(0, 3).map((i) => `episode ${i.index}: ${i.path}: ${i.message}`).join('; ');
    throw new ValidationError(`${invalid} of ${envelopes.length + invalid} episodes are invalid; nothing was stored (${named}${issues.length > 3 ? '; …' : ''})`, issues);
  }
  return envelopes;
}

/** How far ahead of this server's clock a writer's clock may be when it sends a link. */
const LINK_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * A link says two keys are one (or two) from when it is said: among links of equal standing the
 * later wins, so one dated ahead would outlast every unlink said before its date.
 */
function futureLink(e: Envelope, latest: number): string | null {
  if (e.occurred_at === null || Date.parse(e.occurred_at) <= latest) return null;
  return `a link holds from when it is said: occurred_at ${e.occurred_at} is ahead of now (leave it out, or send the time it was said)`;
}

function parseBatch(principal: Principal, items: readonly unknown[]): Envelope[] {
  const envelopes = parseItems(items, principal.workspace_id, () => ({ role: principal.role, user: principal.user }));
  // A connector's source is reserved for keys bound to it (design §2): no other writer may take
  // its idempotency keys first, or pass for it.
  const bound = new Set(principal.sources ?? []);
  const taken = envelopes.findIndex((e) => (isReservedSource(e.source) || e.source === RESOLVER_SOURCE) && !bound.has(e.source));
  if (taken >= 0) {
    const source = envelopes[taken]!.source;
    if (source === RESOLVER_SOURCE) throw new ForbiddenError(`episode ${taken}: source "${RESOLVER_SOURCE}" holds the configured resolver's answers and only it writes them; nothing was stored`);
    throw new ForbiddenError(
      `episode ${taken}: source ${JSON.stringify(source)} is reserved for keys bound to it (canon keys create --source ${source}); nothing was stored`,
    );
  }
  // A subject or a key that would pass for another's, and a link the compiler could not read (it
  // does nothing, or names another workspace), are refused here rather than stored. An import keeps the episodes its log holds,
  // as they were, so these are a writer's checks, not the schema's.
  const latest = Date.now() + LINK_CLOCK_SKEW_MS;
  const issues = envelopes.flatMap((e, index) => {
    const name = subjectFault(e.subject);
    const key = subjectFault(e.idempotency_key, 'key');
    const link = e.kind === LINK_KIND ? (linkFault(e) ?? linkWorkspaceFault(e) ?? futureLink(e, latest)) : null;
    return [
      ...(name === null ? [] : [{ index, path: 'subject', message: name }]),
      ...(key === null ? [] : [{ index, path: 'idempotency_key', message: key }]),
      ...(link === null ? [] : [{ index, path: 'body.link', message: link }]),
    ];
  });
  if (issues.length > 0) {
    const invalid = new Set(issues.map((i) => i.index)).size;
    const named = issues.slice(0, 3).map((i) => `episode ${i.index}: ${i.path}: ${i.message}`).join('; ');
    throw new ValidationError(`${invalid} of ${envelopes.length} episodes are invalid; nothing was stored (${named}${issues.length > 3 ? '; …' : ''})`, issues);
  }
  return envelopes;
}
