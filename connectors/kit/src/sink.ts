import type { EpisodeInput } from '@canon/core';
import type { JsonValue } from './contract.js';

export interface CommitItemResult {
  index: number;
  status: 'created' | 'duplicate' | 'erased' | 'refused';
  episode_id: string | null;
  /** Secrets replaced in the item before it was stored (0 or absent: none). */
  redacted?: number;
}

/**
 * Where a connector run writes. The runtime implements it over PostgreSQL with the cursor of
 * one (workspace, connector instance) and the `connector` role.
 */
export interface ConnectorSink {
  loadCursor(): Promise<JsonValue | null>;
  /**
   * Appends the batch and saves the cursor in one transaction. Follows the ingest rules of
   * design §2: a key stored with a different envelope throws KeyConflictError and stores
   * nothing (not even the cursor).
   */
  commit(episodes: EpisodeInput[], cursor: JsonValue): Promise<CommitItemResult[]>;
}
