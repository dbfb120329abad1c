import type { Sql } from '../db.js';

/**
 * Revokes every key of a workspace bound to a user and takes the user's name off them (and the
 * label, which whoever made the key may have written it in): an
 * erasure of a person leaves no row naming them, and no key writing in their name. The rows stay
 * (revoked, without a user) so `keys list` still accounts for every key ever made.
 */
export async function revokeKeysOfUser(sql: Sql, workspaceId: string, user: string): Promise<number> {
  const { rowCount } = await sql.query(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()), user_id = NULL, label = NULL
     WHERE workspace_id = $1 AND user_id = $2`,
    [workspaceId, user],
  );
  return rowCount ?? 0;
}
