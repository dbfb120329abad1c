import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  doublePrecision,
  integer,
  index,
  json,
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
 * is never skipped by a cursor that has moved past it (design §2).
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
    /**
     * The sources this key may write besides `api` and `mcp` (design §2): a connector's sources
     * are reserved for keys bound to them, so no other writer takes its idempotency keys first.
     */
    sources: text('sources').array().notNull().default(sql`'{}'::text[]`),
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
    // No foreign key to workspaces (migration 0024): every writer enters a workspace that a key
    // or a connector instance created first (ensureWorkspace), workspaces are never updated or
    // deleted (the roles may not), and the check cost one lookup per row, half of an ingest's insert.
    workspace_id: text('workspace_id').notNull(),
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
    // The API key that wrote the row (the author when it names no user); null for rows written
    // before keys were recorded.
    actor_key: text('actor_key'),
    source_ref: text('source_ref'),
    content_hash: text('content_hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.id] }),
    uniqueIndex('episodes_key_uq').on(t.workspace_id, t.source, t.idempotency_key),
    index('episodes_log_idx').on(t.workspace_id, t.tx_id, t.position),
    index('episodes_subject_log_idx').on(t.workspace_id, t.subject, t.tx_id, t.position),
    index('episodes_lineage_idx').on(t.workspace_id, t.lineage),
    // Every compile reads its subject's links: a few rows among many episodes.
    index('episodes_links_idx').on(t.workspace_id, t.subject).where(sql`${t.kind} = 'link'`),
    // Snapshot episodes only: a compile asks for the snapshot versions of every lineage its claims
    // come from, and most episodes are no snapshot, so the answer is usually read from an empty range.
    index('episodes_snapshot_idx').on(t.workspace_id, t.subject, t.lineage).where(sql`${t.snapshot}`),
    // A document's text (prose, code) is searchable though it states no fact: full-text over
    // documents only, led by the workspace like every other index.
    index('episodes_document_fts_idx')
      .using('gin', t.workspace_id, sql`to_tsvector('simple', ${t.body} ->> 'text')`)
      .where(sql`${t.kind} = 'document'`),
    check('episodes_scope_ck', sql`(${t.scope} = 'workspace' and ${t.owner} is null) or (${t.scope} = 'personal' and ${t.owner} is not null)`),
  ],
);


// ---------------------------------------------------------------------------------------------
// Compiled state. Everything below is derived from the log and can be rebuilt from it, except
// compile_runs (an audit log for people) and the connector bookkeeping.

/** Episodes ingested but not yet compiled: written by ingest in the same transaction. */
export const pending = pgTable(
  'pending',
  {
    workspace_id: text('workspace_id').notNull(),
    subject: text('subject').notNull(),
    episode_id: uuid('episode_id').notNull(),
    /**
     * The episode's scope and owner, written with the row from the same envelope (or read from
     * the episode): the personal-scope policy reads them here instead of looking the episode up
     * for every row (migration 0024).
     */
    scope: text('scope').notNull(),
    owner: text('owner'),
    created_at: ms('created_at').notNull().defaultNow(),
    /**
     * On one row of the rows a statement marks for a subject: how many it marked; null on the
     * others. The backlog's size is then the sum over a few rows a batch instead of a count of
     * every row (canon_pending_batches_at_least, migration 0037).
     */
    batch_count: integer('batch_count'),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.subject, t.episode_id] }),
    index('pending_batches_idx').on(t.workspace_id, t.subject).where(sql`${t.batch_count} is not null`),
    check('pending_scope_ck', sql`(${t.scope} = 'workspace' and ${t.owner} is null) or (${t.scope} = 'personal' and ${t.owner} is not null)`),
  ],
);

/**
 * How many episodes of each subject wait for a compile, every user's: what `CANON_COMPILE_AFTER` is
 * checked against. Each ingest adds what it marked, as the last statement of its transaction, and
 * each compile sets it from the rows it leaves (canon_backlog_add and canon_backlog_recount,
 * migration 0043): one row a subject to read, however long the backlog. A subject with nothing
 * waiting has no row.
 */
export const pendingBacklog = pgTable(
  'pending_backlog',
  {
    workspace_id: text('workspace_id').notNull(),
    subject: text('subject').notNull(),
    episodes: bigint('episodes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.subject] })],
);

export const claims = pgTable(
  'claims',
  {
    workspace_id: text('workspace_id').notNull(),
    episode_id: uuid('episode_id').notNull(),
    idx: integer('idx').notNull(),
    subject: text('subject').notNull(),
    memory_id: text('memory_id').notNull(),
    lineage: text('lineage').notNull(),
    /**
     * The whole claim as core's `extract` returned it; handed back to `fold` unchanged. `json`, not
     * `jsonb`: it is only ever written whole and read whole (or one member of it), so the text is
     * kept as sent instead of being parsed into jsonb on every insert (migration 0028).
     */
    claim: json('claim').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.episode_id, t.idx] }),
    index('claims_memory_idx').on(t.workspace_id, t.memory_id),
    index('claims_lineage_idx').on(t.workspace_id, t.subject, t.lineage),
  ],
);

export const memories = pgTable(
  'memories',
  {
    workspace_id: text('workspace_id').notNull(),
    id: text('id').notNull(),
    subject: text('subject').notNull(),
    key: text('key').notNull(),
    scope: text('scope').notNull(),
    owner: text('owner'),
    predicate: text('predicate').notNull(),
    qualifiers: jsonb('qualifiers').notNull(),
    /** Claims folded in: deterministic and only grows; conditional writes compare it. */
    revision: integer('revision').notNull(),
    etag: text('etag').notNull(),
    /** This timeline's share of the subject's state hash. */
    digest: text('digest').notNull(),
    status: text('status').notNull(),
    /** Written whole and read whole, so `json` like `claims.claim` (migration 0028). */
    timeline: json('timeline').notNull(),
    /**
     * Memories of the same subject and scope that may be this fact worded otherwise (design §1,
     * law 3): derived at compile, shown on read, never part of the timeline or the state hash.
     * The best `CANDIDATES_SHOWN` (20) of its pairs, best first (migration 0035), then any ref
     * that only carries a link proposal.
     */
    candidates: jsonb('candidates').notNull().default(sql`'[]'::jsonb`),
    /**
     * What recall shows of the memory from the timeline's last change on, computed when the
     * timeline is written, so recall of a subject need not read and refold whole timelines. Null
     * on rows written before it existed: recall then reads the timeline.
     */
    summary: json('summary'),
    /**
     * What a page of another memory needs of this one when it is a candidate there: the summary's
     * time bounds, status, predicate, qualifiers and values, without evidence or sources. Written
     * with the summary, so a page of 100 memories with 400 candidates off the page reads 400
     * small values instead of taking 400 summaries apart. Null on older rows: read from `summary`.
     */
    side: jsonb('side'),
    /**
     * The `scope`, `owner` and `side` of each memory in `candidates`, by id, as they stood when
     * this row or one of them was last written: a page reads its candidates with its own rows
     * instead of looking up 400 sides by id. Kept by the compile that writes either memory (the
     * rows showing a memory are found by their lists: a row keeps its best candidates only, so one
     * may show a memory that does not show it back); null when the row has no candidates. Candidates share a scope
     * and an owner, so a row never keeps a side its readers could not read themselves.
     */
    partner_sides: json('partner_sides'),
    /**
     * A claim of the memory was told as a change or a correction by a cue taken out of its
     * wording (`toldAsChange`): the candidate search compares it as a restatement. Derived at
     * compile from the memory's claims, like the timeline.
     */
    told_as_change: boolean('told_as_change').notNull().default(false),
    /**
     * The documents (lineages) the memory's claims came from (`documentsOf`): two keys stated by
     * one document are never candidates. Derived at compile, like `told_as_change`.
     */
    document_lineages: text('document_lineages').array().notNull().default(sql`'{}'::text[]`),
    /**
     * Where the next compile of this key may resume its fold (`FoldCheckpoint`): the last claim
     * folded and the open values with their claims. Written with the timeline, never part of it
     * or of any hash; null where a fold cannot resume (a snapshot lineage, a claim set ahead, a
     * many key, an open value on too many claims), and on rows written before it existed.
     */
    checkpoint: json('checkpoint'),
    /**
     * The hashes and view bounds of the blocks of this timeline kept in `memory_blocks` (`Sealed`,
     * docs/scaling.md): `timeline` then holds only the items after them, the head. Null: the
     * timeline is whole. Never part of a hash, which does not depend on where the blocks are kept.
     */
    sealed: json('sealed'),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.id] }),
    index('memories_subject_idx').on(t.workspace_id, t.subject, t.predicate),
    // Recall of a subject reads a page in bytewise key order: from the index, not a sort of the subject.
    index('memories_subject_key_idx').on(t.workspace_id, t.subject, sql`${t.key} COLLATE "C"`),
  ],
);

/**
 * A timeline's final blocks (values by 64, decisions by 256, counted from its start), kept apart
 * from its memory's row so that a compile of a key restated without end reads and writes its head
 * only (docs/scaling.md, "A key restated without end"). `items` is the block's canonical JSON, as
 * the block was hashed. Readers of a whole timeline assemble it (`TIMELINE`).
 */
export const memoryBlocks = pgTable(
  'memory_blocks',
  {
    workspace_id: text('workspace_id').notNull(),
    memory_id: text('memory_id').notNull(),
    kind: text('kind').notNull(),
    n: integer('n').notNull(),
    items: json('items').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.memory_id, t.kind, t.n] })],
);

/** The timeline's values as rows, for queries by time and text. No "current" flag: a view. */
export const memoryValues = pgTable(
  'memory_values',
  {
    workspace_id: text('workspace_id').notNull(),
    memory_id: text('memory_id').notNull(),
    ord: integer('ord').notNull(),
    subject: text('subject').notNull(),
    scope: text('scope').notNull(),
    owner: text('owner'),
    value: jsonb('value'),
    /** The value as text (and the predicate), for search. */
    search_text: text('search_text').notNull(),
    valid_from: ms('valid_from').notNull(),
    valid_to: ms('valid_to'),
    status: text('status').notNull(),
    superseded_by: text('superseded_by'),
    conditions: jsonb('conditions').notNull(),
    standing: integer('standing').notNull(),
    support: integer('support').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.memory_id, t.ord] }),
    index('memory_values_subject_idx').on(t.workspace_id, t.subject, t.valid_from),
    // Search: full-text (simple configuration: no stemming, so "v2" and "not" stay as written)
    // and trigram similarity for near matches.
    index('memory_values_fts_idx').using('gin', t.workspace_id, sql`to_tsvector('simple', ${t.search_text})`),
    index('memory_values_trgm_idx').using('gin', t.workspace_id, sql`${t.search_text} gin_trgm_ops`),
  ],
);

/**
 * The words of each memory value (the lexemes of `to_tsvector('simple', search_text)`), one row a
 * word, ordered by memory id within a word: search across a workspace reads a common word's
 * matches in memory-id order and stops after the few it ranks, where the GIN posting list of
 * that word would be read whole. Kept by triggers on memory_values (migrations 0016, 0018), never
 * written by hand; `owner` as on the value, for the same personal-scope policy.
 */
export const memoryValueTerms = pgTable(
  'memory_value_terms',
  {
    workspace_id: text('workspace_id').notNull(),
    term: text('term').notNull(),
    memory_id: text('memory_id').notNull(),
    ord: integer('ord').notNull(),
    scope: text('scope').notNull(),
    owner: text('owner'),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.term, t.memory_id, t.ord] })],
);

export const evidence = pgTable(
  'evidence',
  {
    workspace_id: text('workspace_id').notNull(),
    memory_id: text('memory_id').notNull(),
    value_ord: integer('value_ord').notNull(),
    source: text('source').notNull(),
    idempotency_key: text('idempotency_key').notNull(),
    claim_index: integer('claim_index').notNull(),
    lineage: text('lineage').notNull(),
    source_ref: text('source_ref'),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.memory_id, t.value_ord, t.source, t.idempotency_key, t.claim_index] }),
    index('evidence_claim_idx').on(t.workspace_id, t.source, t.idempotency_key),
  ],
);

/** What became of each claim (supports / duplicate of / superseded by / overruled / disputes …). */
export const claimDecisions = pgTable(
  'claim_decisions',
  {
    workspace_id: text('workspace_id').notNull(),
    memory_id: text('memory_id').notNull(),
    source: text('source').notNull(),
    idempotency_key: text('idempotency_key').notNull(),
    claim_index: integer('claim_index').notNull(),
    kind: text('kind').notNull(),
    target: jsonb('target'),
    reason: text('reason').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.memory_id, t.source, t.idempotency_key, t.claim_index] })],
);

/** Which compile consumed each episode, under which compiler version and policies. */
export const episodeMarkers = pgTable(
  'episode_markers',
  {
    workspace_id: text('workspace_id').notNull(),
    episode_id: uuid('episode_id').notNull(),
    subject: text('subject').notNull(),
    compile_run_id: uuid('compile_run_id').notNull(),
    compiler_version: text('compiler_version').notNull(),
    policy_fingerprint: text('policy_fingerprint').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.episode_id] }),
    index('episode_markers_subject_idx').on(t.workspace_id, t.subject),
  ],
);

/** Per subject: the state hash (kept incrementally) and what it was compiled with. */
export const subjects = pgTable(
  'subjects',
  {
    workspace_id: text('workspace_id').notNull(),
    subject: text('subject').notNull(),
    state_hash: text('state_hash').notNull(),
    compiler_version: text('compiler_version').notNull(),
    policy_fingerprint: text('policy_fingerprint').notNull(),
    memories: integer('memories').notNull(),
    open_conflicts: integer('open_conflicts').notNull(),
    /**
     * Per owner of personal memories, the sum of their digests (a part of `state_hash`), kept by
     * compiles as `state_hash` is: what a compile's answer subtracts for a key of another user
     * (`seenBy`). Null on a row from before migration 0042 until its subject's next compile.
     */
    personal_sums: jsonb('personal_sums').$type<Record<string, string>>(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.subject] })],
);

/** Audit log of compiles for people: not state, not rebuilt, not hashed. */
export const compileRuns = pgTable(
  'compile_runs',
  {
    workspace_id: text('workspace_id').notNull(),
    id: uuid('id').notNull(),
    subject: text('subject').notNull(),
    kind: text('kind').notNull(),
    job_id: text('job_id'),
    started_at: ms('started_at').notNull(),
    finished_at: ms('finished_at').notNull().defaultNow(),
    duration_ms: doublePrecision('duration_ms').notNull(),
    result: jsonb('result').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.id] }),
    index('compile_runs_subject_idx').on(t.workspace_id, t.subject, t.started_at),
  ],
);

/** A workspace's predicate policies (GET/PUT /v1/policies); absent = the defaults. */
export const policies = pgTable('policies', {
  workspace_id: text('workspace_id').primaryKey(),
  policy_set: jsonb('policy_set').notNull(),
  updated_at: ms('updated_at').notNull().defaultNow(),
});

export const connectorInstances = pgTable(
  'connector_instances',
  {
    workspace_id: text('workspace_id').notNull(),
    id: text('id').notNull(),
    connector: text('connector').notNull(),
    config: jsonb('config').notNull(),
    schedule: text('schedule'),
    created_at: ms('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.id] })],
);

/** A connector instance's cursor, saved in the same transaction as the batch it follows. */
export const connectorCursors = pgTable(
  'connector_cursors',
  {
    workspace_id: text('workspace_id').notNull(),
    instance_id: text('instance_id').notNull(),
    cursor: jsonb('cursor').notNull(),
    updated_at: ms('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.instance_id] })],
);

/**
 * Keys of erased episodes (design §8): a content-free hash of workspace + source + key, so a
 * re-sync answers `erased` instead of resurrecting what was erased.
 */
export const erasedKeys = pgTable(
  'erased_keys',
  {
    workspace_id: text('workspace_id').notNull(),
    key_hash: text('key_hash').notNull(),
    erasure_id: uuid('erasure_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.key_hash] })],
);

/**
 * The subjects an erasure touched, by a content-free hash of workspace + subject (as `erasures`
 * hashes a subject target): there a memory's revision can come back to a number it had, holding
 * something else, so a proposal must name the memory by its ETag, not its revision.
 */
export const erasureRebuiltSubjects = pgTable(
  'erasure_rebuilt_subjects',
  {
    workspace_id: text('workspace_id').notNull(),
    subject_hash: text('subject_hash').notNull(),
    erasure_id: uuid('erasure_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.subject_hash] })],
);

/** Who erased what and when — counts and a hash of the target, never content. */
export const erasures = pgTable(
  'erasures',
  {
    workspace_id: text('workspace_id').notNull(),
    id: uuid('id').notNull(),
    target_kind: text('target_kind').notNull(),
    target_hash: text('target_hash').notNull(),
    actor_key_id: text('actor_key_id').notNull(),
    actor_role: text('actor_role').notNull(),
    episodes: integer('episodes').notNull(),
    memories: integer('memories').notNull(),
    erased_at: ms('erased_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.id] })],
);

/** How far a running `{all}` / `{subjects}` compile job is: for people polling its status. */
export const jobProgress = pgTable(
  'job_progress',
  {
    workspace_id: text('workspace_id').notNull(),
    job_id: uuid('job_id').notNull(),
    done: integer('done').notNull(),
    total: integer('total').notNull(),
    updated_at: ms('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.job_id] }),
    // A second {all} request looks for the running job among the latest reports: read from here,
    // not by sorting every report the workspace's jobs ever made.
    index('job_progress_recent_idx').on(t.workspace_id, t.updated_at, t.job_id),
  ],
);

/**
 * What each compile changed (design §11): one row per memory whose view changed,
 * written in the compile's own transaction. Derived like the memories — a rebuild that changes
 * nothing writes none, erasure deletes the rows of the subjects it touches — and read in commit
 * order by `(tx_id, position)`, gated like the log (`tx_id < pg_snapshot_xmin`), so a follower
 * never skips a row of a compile still in flight.
 */
export const changes = pgTable(
  'changes',
  {
    workspace_id: text('workspace_id').notNull(),
    tx_id: xid8('tx_id')
      .notNull()
      .default(sql`pg_current_xact_id()`),
    position: bigint('position', { mode: 'number' }).generatedAlwaysAsIdentity(),
    memory_id: text('memory_id').notNull(),
    subject: text('subject').notNull(),
    key: text('key').notNull(),
    predicate: text('predicate').notNull(),
    /** Who may see the row, as for its memory (row-level security reads these two). */
    scope: text('scope').notNull(),
    owner: text('owner'),
    change: text('change').notNull(),
    /** `{status, values}` of the memory's view before and after; null when it did not exist (or, after an erasure, may not be told). */
    before: jsonb('before'),
    after: jsonb('after'),
    /** The last episode of this compile with a claim on the memory; null when none did (a snapshot ended it, an erasure). */
    episode_id: uuid('episode_id'),
    /** The compile run that wrote it; null for a rebuild that found no episode left (an erasure's). */
    compile_run_id: uuid('compile_run_id'),
    changed_at: ms('changed_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.tx_id, t.position] }),
    index('changes_subject_idx').on(t.workspace_id, t.subject, t.tx_id, t.position),
  ],
);

/**
 * A workspace's webhooks: the change feed POSTed to a URL, signed with the secret, as the key
 * that created it may see it. `after_tx`/`after_position` is how far the dispatcher has queued
 * deliveries; the counters are for people (`canon webhooks list`).
 */
export const webhooks = pgTable(
  'webhooks',
  {
    workspace_id: text('workspace_id').notNull(),
    id: uuid('id').notNull(),
    url: text('url').notNull(),
    subject: text('subject'),
    predicate: text('predicate'),
    key_id: uuid('key_id').notNull(),
    secret: text('secret').notNull(),
    after_tx: xid8('after_tx').notNull(),
    after_position: bigint('after_position', { mode: 'number' }).notNull(),
    delivered: integer('delivered').notNull().default(0),
    failed_attempts: integer('failed_attempts').notNull().default(0),
    dead_letters: integer('dead_letters').notNull().default(0),
    last_error: text('last_error'),
    last_attempt_at: ms('last_attempt_at'),
    last_delivered_at: ms('last_delivered_at'),
    created_at: ms('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.id] })],
);
