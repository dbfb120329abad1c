import { RECALL_COLUMNS } from './rows.js';
import { sqlLiteral } from '../literal.js';

/**
 * One page of a subject's memories in key order (bytewise, as JavaScript compares the keys of a
 * refold), after the key `after` (exclusive), as a statement of literals: a caller sends it with
 * the scope in one round trip (`readInScope`). Its rows are `MemoryRecallRow`s, read from
 * memories_subject_key_idx.
 */
export function recallPageStatement(workspaceId: string, subject: string, page: { after: string | null; limit: number }): string {
  if (!Number.isSafeInteger(page.limit) || page.limit < 1) throw new RangeError(`not a page size: ${page.limit}`);
  const after = page.after === null ? '' : ` AND key COLLATE "C" > ${sqlLiteral(page.after)}`;
  return `SELECT ${RECALL_COLUMNS} FROM memories WHERE workspace_id = ${sqlLiteral(workspaceId)} AND subject = ${sqlLiteral(subject)}${after}
           ORDER BY key COLLATE "C" LIMIT ${page.limit}`;
}

/**
 * What a page needs of the candidates it names off the page, as a statement of literals; its rows
 * are `CandidateSideRow`s. Each one's scope and owner (who may see it) and its side (status,
 * predicate, qualifiers and the values it holds) — not its key, nor the evidence and source texts
 * of its summary: a page of 100 names about 400 such rows, and their keys alone were a third of
 * what it read. Every row with a summary has a side (migration 0026 filled the older ones).
 */
export function candidateSidesStatement(workspaceId: string, ids: readonly string[]): string {
  const list = ids.length === 0 ? `ARRAY[]::text[]` : `ARRAY[${ids.map((id) => sqlLiteral(id)).join(',')}]`;
  return `SELECT id, scope, owner, side AS summary FROM memories WHERE workspace_id = ${sqlLiteral(workspaceId)} AND id = ANY (${list})`;
}
