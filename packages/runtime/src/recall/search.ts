import { BusyError, cleanString, shownCandidates, view, parseInput, type MemoryView, type ValueStatus } from '@canon/core';
import { memoriesByIds, searchDocumentTexts, searchMemoryValues, StatementTimeoutError, withStatementTimeout, type DocumentHit, type Pool } from '@canon/store';
import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { visibleTo } from './recall.js';
import { candidateViews, sideOf, type CandidateSide } from '../links/candidate-view.js';
import { withWorkspace } from '../auth/scope.js';

const text = (max: number) => cleanString(z.string().max(max));

/**
 * The most words a search may hold. Every word is looked for, ranked and highlighted in every
 * candidate text, so the cost of a search grows with its words times the length of what matches:
 * 32 leaves room for a pasted sentence or two and keeps a query from costing seconds.
 */
export const SEARCH_MAX_WORDS = 32;
/**
 * The query as searched: a word said again outside quotes adds nothing to what matches (every
 * word must be there once either way) but is matched, ranked and highlighted once more, so it is
 * said once. Phrases in quotes, excluded words ("-friday") and OR are kept as written.
 */
export function searchQuery(q: string): { q: string; words: number } {
  const seen = new Set<string>();
  const kept: string[] = [];
  let words = 0;
  for (const token of q.match(/"[^"]*"?|\S+/g) ?? []) {
    if (token.toLowerCase() === 'or') {
      kept.push(token);
      continue;
    }
    const bare = !token.startsWith('"');
    if (bare) {
      const k = token.toLowerCase();
      if (seen.has(k)) continue;
      seen.add(k);
    }
    kept.push(token);
    words += bare ? 1 : Math.max(1, token.replace(/"/g, ' ').trim().split(/\s+/).filter(Boolean).length);
  }
  return { q: kept.join(' '), words };
}

export const SearchParams = z.strictObject({
  q: text(512)
    .transform((s) => s.trim())
    .pipe(z.string().min(1, 'give words to search for'))
    .transform((s, ctx) => {
      const { q, words } = searchQuery(s);
      if (words > SEARCH_MAX_WORDS) ctx.addIssue({ code: 'custom', message: `at most ${SEARCH_MAX_WORDS} words (this has ${words}): search for the ones that tell what you look for` });
      return q;
    }),
  subject: text(512).pipe(z.string().min(1)).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  include_history: z.union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')]).default(false),
});
export type SearchParams = z.input<typeof SearchParams>;

/** One matching value of a memory, seen at the instant of the search. */
export interface SearchResult {
  memory_id: string;
  subject: string;
  key: string;
  predicate: string;
  qualifiers: Record<string, string>;
  scope: 'workspace' | 'personal';
  value: unknown;
  conditions: string[];
  valid_from: string;
  valid_to: string | null;
  /** The value's time-free status in the timeline: `superseded` values only come with include_history. */
  value_status: ValueStatus;
  /** Whether this value holds now (always true without include_history). */
  current: boolean;
  /** The memory seen now: `conflicted` means this value is one side of an open disagreement. */
  memory_status: MemoryView['status'];
  needs_verification: boolean;
  /** `text`: a full-text match; `near`: only a trigram near match (a typo, a partial word). */
  match: 'text' | 'near';
  rank: number;
  similarity: number;
}

export interface SearchResponse {
  results: SearchResult[];
  /**
   * Documents whose text matched (the version in force of each scanned file): prose and code
   * that state no fact are searchable here, not memories. Best first, at most `limit`.
   */
  documents: DocumentHit[];
}

/**
 * Lexical search over current memory values (design §7): full-text ranked by ts_rank, then near
 * matches by trigram similarity, ties by memory id and value order — ranking the first 100 matches
 * in memory-id order when more match, so the cost follows the window, not the number of matches
 * (migration 0016). The database proposes
 * candidates; each is re-checked here against its memory's timeline with core's `view`, so a
 * value superseded or overruled since the rows were written never comes back as current.
 * `timeoutMs`: how long the database may spend on the search's statements (`CANON_SEARCH_TIMEOUT_MS`),
 * whatever its words — past it the search is stopped on the server, also when its client has gone.
 */
export async function searchMemories(pool: Pool, principal: Principal, params: SearchParams, now: string, timeoutMs = 5_000): Promise<SearchResponse> {
  const p = parseInput(SearchParams, params, 'query');
  return withWorkspace(pool, principal, (tx) => withStatementTimeout(tx, timeoutMs, async () => {
    const hits = await searchMemoryValues(tx, {
      workspaceId: principal.workspace_id,
      q: p.q,
      subject: p.subject ?? null,
      limit: p.limit,
      includeHistory: p.include_history,
      user: principal.user,
      at: now,
    });
    const memories = await memoriesByIds(tx, principal.workspace_id, [...new Set(hits.map((h) => h.memory_id))]);
    // A value with a possible contradiction needs verifying here as in recall: the candidates the
    // rows show are read (one statement, only when a hit has any) and judged at the same instant.
    const partnerIds = new Set<string>();
    for (const row of memories.values()) for (const ref of shownCandidates(row.candidates)) if (!memories.has(ref.memory_id)) partnerIds.add(ref.memory_id);
    const partners = partnerIds.size === 0 ? new Map() : await memoriesByIds(tx, principal.workspace_id, [...partnerIds]);
    const sides = new Map<string, CandidateSide>();
    for (const row of [...memories.values(), ...partners.values()]) if (visibleTo(principal, row.timeline)) sides.set(row.id, sideOf(row.timeline, now));
    const results: SearchResult[] = [];
    for (const hit of hits) {
      const row = memories.get(hit.memory_id);
      const value = row?.timeline.values[hit.ord];
      // A row whose memory was rewritten meanwhile, or another user's personal memory: absent.
      if (!row || !value || !visibleTo(principal, row.timeline)) continue;
      const seen = view(row.timeline, now);
      const current = seen.current.includes(value);
      if (!current && !p.include_history) continue;
      const fk = row.timeline.fact_key;
      results.push({
        memory_id: row.id,
        subject: row.subject,
        key: row.timeline.key,
        predicate: fk.predicate,
        qualifiers: fk.qualifiers,
        scope: fk.scope,
        value: value.value,
        conditions: value.conditions,
        valid_from: value.valid_from,
        valid_to: value.valid_to,
        value_status: value.status,
        current,
        memory_status: seen.status,
        needs_verification:
          current && (seen.needs_verification || candidateViews(sides.get(row.id)!, row.candidates, sides).some((c) => c.kind === 'possible_contradiction')),
        match: hit.text_match ? 'text' : 'near',
        rank: hit.rank,
        similarity: hit.similarity,
      });
    }
    const documents = await searchDocumentTexts(tx, { workspaceId: principal.workspace_id, q: p.q, subject: p.subject ?? null, limit: p.limit, user: principal.user });
    return { results, documents };
  })).catch((err: unknown) => {
    if (err instanceof StatementTimeoutError) {
      throw new BusyError(`the search was stopped after ${timeoutMs / 1000} s: search for fewer or rarer words, or within one subject`, 1);
    }
    throw err;
  });
}
