import type { FoldCheckpoint, Sealed } from '@canon/core';
import type { Sql } from '../db.js';
import type { CandidateRefRow } from '../candidates/rows.js';
import type { PartnerSide } from './rows.js';

export interface StoredDerivations {
  scope: PartnerSide['scope'];
  owner: string | null;
  summary: unknown;
  side: unknown;
  told_as_change: boolean;
  document_lineages: string[];
  checkpoint: FoldCheckpoint | null;
  sealed: Sealed | null;
  candidates: CandidateRefRow[];
  partner_sides: Record<string, PartnerSide> | null;
}

/**
 * Each memory's stored summary, side, change flag, checkpoint and sealed blocks' hashes, for verify
 * to hold against its timeline and claims; and what it keeps of its candidates, against theirs.
 */
export async function summariesOfSubject(
  sql: Sql,
  workspaceId: string,
  subject: string,
): Promise<Map<string, StoredDerivations>> {
  const { rows } = await sql.query<StoredDerivations & { id: string }>(
    'SELECT id, scope, owner, summary, side, told_as_change, document_lineages, checkpoint, sealed, candidates, partner_sides FROM memories WHERE workspace_id = $1 AND subject = $2',
    [workspaceId, subject],
  );
  return new Map(rows.map(({ id, ...r }) => [id, r]));
}
