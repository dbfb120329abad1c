import type { Sql } from '../db.js';

export interface ProjectionRows {
  values: Array<{ memory_id: string; ord: number; value: unknown; valid_from: string; valid_to: string | null; status: string }>;
  /** `value_ord|source|idempotency_key|claim_index` per memory. */
  evidence: Map<string, string[]>;
  /** `source|idempotency_key|claim_index|kind` per memory. */
  decisions: Map<string, string[]>;
}

/** The row projections of a subject's memories as stored, for `verify` to check against the timelines. */
export async function projectionRowsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<ProjectionRows> {
  const values = await sql.query<ProjectionRows['values'][number]>(
    `SELECT memory_id, ord, value, valid_from, valid_to, status FROM memory_values
     WHERE workspace_id = $1 AND subject = $2 ORDER BY memory_id, ord`,
    [workspaceId, subject],
  );
  const ids = `SELECT id FROM memories WHERE workspace_id = $1 AND subject = $2`;
  const evidence = await sql.query<{ memory_id: string; k: string }>(
    `SELECT memory_id, value_ord || '|' || source || '|' || idempotency_key || '|' || claim_index AS k
     FROM evidence WHERE workspace_id = $1 AND memory_id IN (${ids})`,
    [workspaceId, subject],
  );
  const decisions = await sql.query<{ memory_id: string; k: string }>(
    `SELECT memory_id, source || '|' || idempotency_key || '|' || claim_index || '|' || kind AS k
     FROM claim_decisions WHERE workspace_id = $1 AND memory_id IN (${ids})`,
    [workspaceId, subject],
  );
  return { values: values.rows, evidence: group(evidence.rows), decisions: group(decisions.rows) };
}

function group(rows: ReadonlyArray<{ memory_id: string; k: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.memory_id);
    if (list) list.push(r.k);
    else out.set(r.memory_id, [r.k]);
  }
  return out;
}
