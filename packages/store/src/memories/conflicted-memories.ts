import type { Sql } from '../db.js';
import { TIMELINE, type MemoryRow } from './rows.js';

const COLUMNS = `id, subject, key, revision, etag, digest, status, ${TIMELINE}`;

/**
 * Two or more values held at the instant `$at` (a `one` key's dispute then, as the view reads it:
 * neither overruled nor corrected away, the instant inside their interval), of the memories of
 * `$ws` (and `$subject`, when not null). The `status` column says how a timeline ends, which a
 * dispute settled by a scheduled change, or one that opens later, does not tell of now.
 */
export const HELD_TWICE_AT = (ws: string, subject: string, at: string) => `
  SELECT v.memory_id FROM memory_values v
  WHERE v.workspace_id = ${ws} AND (${subject}::text IS NULL OR v.subject = ${subject})
    AND v.status <> 'overruled' AND v.superseded_by IS DISTINCT FROM 'correction'
    AND v.valid_from <= ${at}::timestamptz AND (v.valid_to IS NULL OR v.valid_to > ${at}::timestamptz)
  GROUP BY v.memory_id HAVING count(*) > 1`;

/**
 * Memories in dispute at `at` (now, for the open-conflicts list), of one subject or the whole
 * workspace; the caller still checks the view at its instant.
 */
export async function conflictedMemories(
  sql: Sql,
  workspaceId: string,
  subject: string | null,
  limit: number,
  at: string,
  /** The subject and key of the last row of the page before: this page starts after it. */
  after: readonly [subject: string, key: string] | null = null,
): Promise<MemoryRow[]> {
  const { rows } = await sql.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM memories
     WHERE workspace_id = $1 AND ($2::text IS NULL OR subject = $2) AND id IN (${HELD_TWICE_AT('$1', '$2', '$4')})
       AND timeline->'policy'->>'cardinality' = 'one'
       AND ($5::text IS NULL OR (subject COLLATE "C", key COLLATE "C") > ($5::text COLLATE "C", $6::text COLLATE "C"))
     ORDER BY subject COLLATE "C", key COLLATE "C" LIMIT $3`,
    [workspaceId, subject, limit, at, after?.[0] ?? null, after?.[1] ?? null],
  );
  return rows;
}
