import type { Sql } from '../db.js';

/** What a rebuild needs of a subject's memories before it deletes them: enough to tell what changed. */
export interface MemoryHeadRow {
  id: string;
  key: string;
  predicate: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  digest: string;
  summary: unknown;
}

export async function memoryHeadsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<MemoryHeadRow[]> {
  const { rows } = await sql.query<MemoryHeadRow>('SELECT id, key, predicate, scope, owner, digest, summary FROM memories WHERE workspace_id = $1 AND subject = $2', [
    workspaceId,
    subject,
  ]);
  return rows;
}
