import type { Sql } from '../db.js';

/** Every webhook of every workspace (the dispatcher's round; system role). */
export async function allWebhookIds(sql: Sql): Promise<Array<{ workspace_id: string; id: string }>> {
  const { rows } = await sql.query<{ workspace_id: string; id: string }>('SELECT workspace_id, id FROM webhooks ORDER BY workspace_id, id');
  return rows;
}
