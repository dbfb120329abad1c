import type { Episode, Role } from '@canon/core';

/**
 * Columns of an episode as the log stores them, in one place for every reader. `tx_id` is read as
 * text (an xid8 is a 64-bit number): a statement that selects these columns orders by
 * `episodes.tx_id`, since a bare `tx_id` in ORDER BY names the text column and sorts 999 after 1000.
 */
export const EPISODE_COLUMNS = `id, workspace_id, source, idempotency_key, subject, scope, owner, kind, body,
  occurred_at, occurred_at_defaulted, observed_at, ingested_at, sequence, lineage, snapshot,
  actor_role, actor_user, actor_key, source_ref, content_hash, tx_id::text AS tx_id, position`;

export interface EpisodeDbRow {
  id: string;
  workspace_id: string;
  source: string;
  idempotency_key: string;
  subject: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  kind: string;
  body: Episode['body'];
  occurred_at: string;
  occurred_at_defaulted: boolean;
  observed_at: string | null;
  ingested_at: string;
  sequence: number | null;
  lineage: string;
  snapshot: boolean;
  actor_role: Role;
  actor_user: string | null;
  actor_key: string | null;
  source_ref: string | null;
  content_hash: string;
  tx_id: string;
  position: number;
}

/** An episode with its place in the log: (tx_id, position) is the order readers page by. */
export interface LoggedEpisode extends Episode {
  log_position: string;
}

export function toEpisode(r: EpisodeDbRow): LoggedEpisode {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    source: r.source,
    idempotency_key: r.idempotency_key,
    subject: r.subject,
    scope: r.scope,
    owner: r.owner,
    kind: r.kind,
    body: r.body,
    occurred_at: r.occurred_at,
    occurred_at_defaulted: r.occurred_at_defaulted,
    observed_at: r.observed_at,
    ingested_at: r.ingested_at,
    sequence: r.sequence,
    lineage: r.lineage,
    snapshot: r.snapshot,
    actor: { role: r.actor_role, user: r.actor_user },
    actor_key: r.actor_key,
    source_ref: r.source_ref,
    content_hash: r.content_hash,
    log_position: `${r.tx_id}.${r.position}`,
  };
}

/** One map key for a (source, idempotency key) pair: NUL cannot occur in either. */
export const keyOf = (source: string, idempotencyKey: string) => `${source}\u0000${idempotencyKey}`;
