import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * PostgreSQL's 64-bit transaction id. Readers of the log gate on
 * `tx_id < pg_snapshot_xmin(pg_current_snapshot())`, so a row of a transaction still in flight
 * is never skipped by a cursor that has moved past it (DESIGN §2).
 */
const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => 'xid8',
});

const ms = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: 'string' });

export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  time_zone: text('time_zone').notNull().default('UTC'),
  created_at: ms('created_at').notNull().defaultNow(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    workspace_id: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    id: uuid('id').notNull(),
    role: text('role').notNull(),
    user_id: text('user_id'),
    /** sha256 of the whole key; the key itself is shown once and never stored. */
    key_hash: text('key_hash').notNull(),
    /** The first characters of the key, so a person can tell keys apart in `keys list`. */
    prefix: text('prefix').notNull(),
    label: text('label'),
    created_at: ms('created_at').notNull().defaultNow(),
    revoked_at: ms('revoked_at'),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.id] }),
    // Authentication looks a key up before it knows the workspace: the one index not led by it.
    uniqueIndex('api_keys_key_hash_uq').on(t.key_hash),
    check('api_keys_role_ck', sql`${t.role} in ('owner','maintainer','member','connector','agent','reader')`),
  ],
);

export const episodes = pgTable(
  'episodes',
  {
    workspace_id: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    id: uuid('id').notNull(),
    /** Commit order within the log: (tx_id, position). */
    tx_id: xid8('tx_id')
      .notNull()
      .default(sql`pg_current_xact_id()`),
    position: bigint('position', { mode: 'number' }).generatedAlwaysAsIdentity(),
    source: text('source').notNull(),
    idempotency_key: text('idempotency_key').notNull(),
    subject: text('subject').notNull(),
    scope: text('scope').notNull(),
    owner: text('owner'),
    kind: text('kind').notNull(),
    body: jsonb('body').notNull(),
    occurred_at: ms('occurred_at').notNull(),
    occurred_at_defaulted: boolean('occurred_at_defaulted').notNull(),
    observed_at: ms('observed_at'),
    ingested_at: ms('ingested_at').notNull().defaultNow(),
    sequence: bigint('sequence', { mode: 'number' }),
    lineage: text('lineage').notNull(),
    snapshot: boolean('snapshot').notNull(),
    actor_role: text('actor_role').notNull(),
    actor_user: text('actor_user'),
    source_ref: text('source_ref'),
    content_hash: text('content_hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.id] }),
    uniqueIndex('episodes_key_uq').on(t.workspace_id, t.source, t.idempotency_key),
    index('episodes_log_idx').on(t.workspace_id, t.tx_id, t.position),
    index('episodes_subject_log_idx').on(t.workspace_id, t.subject, t.tx_id, t.position),
    index('episodes_lineage_idx').on(t.workspace_id, t.lineage),
    check('episodes_scope_ck', sql`(${t.scope} = 'workspace' and ${t.owner} is null) or (${t.scope} = 'personal' and ${t.owner} is not null)`),
  ],
);

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type EpisodeRow = typeof episodes.$inferSelect;
