import type { Sql } from '../db.js';
import type { SearchQuery } from './rows.js';

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
