import type { Sql } from '../db.js';

export interface ErasableEpisode {
  id: string;
  source: string;
  idempotency_key: string;
  subject: string;
  /** The role it was written with: a person erased may not have written above the eraser's. */
  actor_role: string;
  /** Its scope and owner: what an erasure may name to the one who asked for it. */
  scope: string;
  owner: string | null;
}

/** The episodes an erasure targets: a subject's, or every one a user wrote or owns. */
export async function erasableEpisodes(
  sql: Sql,
  workspaceId: string,
  target: { subject: string } | { user: string },
): Promise<ErasableEpisode[]> {
  const { rows } =
    'subject' in target
      ? await sql.query<ErasableEpisode>(
          'SELECT id, source, idempotency_key, subject, actor_role, scope, owner FROM episodes WHERE workspace_id = $1 AND subject = $2 ORDER BY tx_id, position',
          [workspaceId, target.subject],
        )
      : await sql.query<ErasableEpisode>(
          `SELECT id, source, idempotency_key, subject, actor_role, scope, owner FROM episodes
           WHERE workspace_id = $1 AND (actor_user = $2 OR owner = $2) ORDER BY tx_id, position`,
          [workspaceId, target.user],
        );
  return rows;
}
