import type { Sql } from '../db.js';

export interface SearchQuery {
  workspaceId: string;
  q: string;
  /** Only this subject; null: every subject of the workspace. */
  subject: string | null;
  limit: number;
  includeHistory: boolean;
  /** Personal memories of this user are searched too; null: workspace memories only. */
  user: string | null;
  /** The instant "current" is judged at (ISO). */
  at: string;
}

/** A memory value that matched: which value (memory_id, ord), how it matched, how well. */
export interface SearchHit {
  memory_id: string;
  ord: number;
  subject: string;
  scope: string;
  owner: string | null;
  status: string;
  superseded_by: string | null;
  valid_from: string;
  valid_to: string | null;
  /** Full-text match (websearch_to_tsquery); false: a near match by trigram word similarity only. */
  text_match: boolean;
  rank: number;
  similarity: number;
}

/**
 * The search itself lives in the SECURITY DEFINER function `canon_search` (migrations 0004, 0008,
 * 0016): under row-level security its indexes could not be used by a plain query. It ranks the
 * first 100 matches in memory-id order, read from `memory_value_terms` when every word of the
 * query is required. The function
 * answers only for the workspace the transaction is confined to (`canon.workspace_id`), so
 * call it inside `withWorkspace`.
 */
export async function searchMemoryValues(sql: Sql, query: SearchQuery): Promise<SearchHit[]> {
  const { rows } = await sql.query<SearchHit>(
    `SELECT memory_id, ord, subject, scope, owner, status, superseded_by, valid_from, valid_to, text_match, rank, similarity
     FROM canon_search($1, $2, $3, $4, $5, $6, $7::timestamptz)`,
    [query.workspaceId, query.q, query.subject, query.limit, query.includeHistory, query.user, query.at],
  );
  return rows;
}

/** A document (a scanned file's latest version) whose text matched: where, and the matching words. */
export interface DocumentHit {
  episode_id: string;
  subject: string;
  source: string;
  source_ref: string | null;
  occurred_at: string;
  /** The best matching fragment, matched words between « and ». */
  snippet: string;
  rank: number;
}

/**
 * Full-text search over the text of documents — prose and code that state no fact are kept as
 * searchable text, not memories (design §3) — through the SECURITY DEFINER function
 * `canon_search_documents` (migration 0013), for the same reason as `canon_search`. Only each
 * lineage's version in force answers: an older version or a deleted file does not.
 */
export async function searchDocumentTexts(sql: Sql, query: Pick<SearchQuery, 'workspaceId' | 'q' | 'subject' | 'limit' | 'user'>): Promise<DocumentHit[]> {
  const { rows } = await sql.query<Omit<DocumentHit, 'occurred_at'> & { occurred_at: Date }>(
    `SELECT episode_id, subject, source, source_ref, occurred_at, snippet, rank FROM canon_search_documents($1, $2, $3, $4, $5)`,
    [query.workspaceId, query.q, query.subject, query.limit, query.user],
  );
  return rows.map((r) => ({ ...r, occurred_at: new Date(r.occurred_at).toISOString() }));
}
