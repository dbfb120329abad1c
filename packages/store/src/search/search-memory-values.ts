import type { Sql } from '../db.js';
import type { SearchQuery } from './rows.js';

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
