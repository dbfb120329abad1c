import type pg from 'pg';
import type { Sql } from '../db.js';
import { sqlLiteral } from '../literal.js';

/**
 * What a compile reads before it folds anything: the workspace's policies, the subject's stamp, its
 * oldest pending episodes, and the sums of its personal memories' digests.
 */
export interface CompileStart {
  /** The policies row as stored, null when the workspace has none. */
  policy_set: unknown | null;
  /** The subject's row, null before its first compile. */
  subject: { state_hash: string; compiler_version: string; policy_fingerprint: string } | null;
  /** Up to `limit` pending episode ids, oldest first. */
  pending: string[];
  /**
   * Per owner, the sum of the digests of the subject's personal memories (`subjects.personal_sums`):
   * empty before its first compile, null on a row a compile has not summed them for yet.
   */
  personal: Map<string, string> | null;
}

interface CompileStartRow {
  policy_set: unknown | null;
  state_hash: string | null;
  compiler_version: string | null;
  policy_fingerprint: string | null;
  pending: string[];
  personal_sums: Record<string, string> | null;
}

/**
 * The statement, over three SQL expressions: the workspace, the subject and the limit. The pending
 * ids come back as one JSON array, not a `text[]`: node-postgres reads an array literal a character
 * at a time, and a first compile's 100,001 ids took 113 ms and 95 MB of short-lived strings that
 * way, against 12 ms for `JSON.parse`.
 */
function startSql(workspace: string, subject: string, limit: string): string {
  return `SELECT (SELECT policy_set FROM policies WHERE workspace_id = ${workspace}) AS policy_set,
            s.state_hash, s.compiler_version, s.policy_fingerprint, s.personal_sums,
            array_to_json(ARRAY(SELECT episode_id::text FROM pending WHERE workspace_id = ${workspace} AND subject = ${subject}
                  ORDER BY created_at, episode_id LIMIT ${limit})) AS pending
     FROM (SELECT 1) AS one LEFT JOIN subjects s ON s.workspace_id = ${workspace} AND s.subject = ${subject}`;
}

/**
 * The reads that open every compile, in one statement: a compile with nothing to do costs
 * its round trips, not its work. Run after the subject's lock, so what it reads is what the
 * compile may change (a statement's snapshot is taken when it starts).
 */
export async function compileStart(sql: Sql, workspaceId: string, subject: string, limit: number): Promise<CompileStart> {
  const { rows } = await sql.query<CompileStartRow>(startSql('$1', '$2', '$3'), [workspaceId, subject, limit]);
  return compileStartOf(rows);
}

/**
 * `compileStart` as a statement of literals, for a caller that sends it with the scope in one
 * simple query (which takes no parameters); `compileStartOf` reads its rows.
 */
export function compileStartStatement(workspaceId: string, subject: string, limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`not a limit: ${limit}`);
  return startSql(sqlLiteral(workspaceId), sqlLiteral(subject), String(limit));
}

export function compileStartOf(rows: readonly pg.QueryResultRow[]): CompileStart {
  const r = rows[0] as CompileStartRow;
  return {
    policy_set: r.policy_set ?? null,
    subject: r.state_hash === null ? null : { state_hash: r.state_hash, compiler_version: r.compiler_version!, policy_fingerprint: r.policy_fingerprint! },
    pending: r.pending,
    personal: r.state_hash === null ? new Map() : r.personal_sums === null ? null : new Map(Object.entries(r.personal_sums)),
  };
}
