import type { FoldCheckpoint, Sealed } from '@canon/core';
import type { Sql } from '../db.js';

/** Each memory's stored summary, side, change flag, checkpoint and sealed blocks' hashes, for verify to hold against its timeline and claims. */
export async function summariesOfSubject(
  sql: Sql,
  workspaceId: string,
  subject: string,
): Promise<Map<string, { summary: unknown; side: unknown; told_as_change: boolean; checkpoint: FoldCheckpoint | null; sealed: Sealed | null }>> {
  const { rows } = await sql.query<{ id: string; summary: unknown; side: unknown; told_as_change: boolean; checkpoint: FoldCheckpoint | null; sealed: Sealed | null }>(
    'SELECT id, summary, side, told_as_change, checkpoint, sealed FROM memories WHERE workspace_id = $1 AND subject = $2',
    [workspaceId, subject],
  );
  return new Map(rows.map((r) => [r.id, { summary: r.summary, side: r.side, told_as_change: r.told_as_change, checkpoint: r.checkpoint, sealed: r.sealed }]));
}
