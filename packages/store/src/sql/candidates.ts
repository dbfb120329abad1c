import type { Sql } from '../db.js';

/** A memory as the candidate search reads it: its key, and the words of a note. */
export interface MemoryShapeRow {
  id: string;
  key: string;
  /** The first value of a note (its words); null for any other predicate. */
  note_text: string | null;
  candidates: CandidateRefRow[];
}

export interface CandidateRefRow {
  memory_id: string;
  score: number;
  reason: string;
  opposite?: true;
  proposed?: { same: boolean; source: string; idempotency_key: string; reason: string };
}

/** Every memory of a subject, light: no timeline, only what candidates are computed from. */
export async function memoryShapesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<MemoryShapeRow[]> {
  const { rows } = await sql.query<MemoryShapeRow>(
    `SELECT id, key,
            CASE WHEN predicate = 'note' THEN timeline->'values'->0->>'value' END AS note_text,
            candidates
       FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY id`,
    [workspaceId, subject],
  );
  return rows;
}

/** Replaces the candidates of these memories (one statement, arrays through unnest). */
export async function setCandidates(sql: Sql, workspaceId: string, changes: ReadonlyArray<{ id: string; candidates: readonly CandidateRefRow[] }>): Promise<void> {
  if (changes.length === 0) return;
  await sql.query(
    `UPDATE memories m SET candidates = c.candidates
       FROM unnest($2::text[], $3::jsonb[]) AS c(id, candidates)
      WHERE m.workspace_id = $1 AND m.id = c.id`,
    [workspaceId, changes.map((c) => c.id), changes.map((c) => JSON.stringify(c.candidates))],
  );
}

/**
 * Removes memories and their projections: a key linked into another memory lives on in that
 * memory's timeline (`linked`), not as a row of its own.
 */
export async function deleteMemories(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  for (const table of ['evidence', 'claim_decisions', 'memory_values']) {
    await sql.query(`DELETE FROM ${table} WHERE workspace_id = $1 AND memory_id = ANY($2::text[])`, [workspaceId, ids]);
  }
  await sql.query('DELETE FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])', [workspaceId, ids]);
}

/**
 * The memory the key of `aliasId` was linked into. The alias keeps no row, but its claims do keep
 * its id (indexed): they give its key and subject, and the subject's row naming that key in its
 * timeline's `linked` is the memory.
 */
export async function memoryIdLinkingKey(sql: Sql, workspaceId: string, aliasId: string): Promise<string | null> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT m.id
       FROM (SELECT subject, claim->>'key' AS key FROM claims WHERE workspace_id = $1 AND memory_id = $2 LIMIT 1) c
       JOIN memories m ON m.workspace_id = $1 AND m.subject = c.subject AND m.timeline->'linked' ? c.key
      LIMIT 1`,
    [workspaceId, aliasId],
  );
  return rows[0]?.id ?? null;
}

/** The fact key of a memory id from its claims (indexed by memory id): also a key linked away. */
export async function factKeyOfMemoryId(sql: Sql, workspaceId: string, id: string): Promise<unknown> {
  const { rows } = await sql.query<{ fact_key: unknown }>(`SELECT claim->'fact_key' AS fact_key FROM claims WHERE workspace_id = $1 AND memory_id = $2 LIMIT 1`, [
    workspaceId,
    id,
  ]);
  return rows[0]?.fact_key ?? null;
}
