import type { PgBoss } from 'pg-boss';
import { cleanString } from '@canon/core';
import type { listSubjects, LoggedEpisode, Pool, PoolClient } from '@canon/store';
import { z } from 'zod';
import type { CompileResult } from './compile/compile.js';
import type { Config } from './ops/config.js';
import type { ContextBundle, ContextRequest } from './recall/context.js';
import type { EmbeddedDatabase } from './ops/embedded-postgres.js';
import type { IngestResult } from './ingest/ingest.js';
import type { ExportParams, OpenedExport } from './export/export.js';
import type { ImportOptions, ImportResult } from './export/import.js';
import type { JobView } from './compile/job-status.js';
import type { ManyResult } from './compile/jobs.js';
import type { CreatedKey, CreateKeyInput, listKeys, revokeKey } from './auth/keys.js';
import type { ResolveResult } from './links/resolver.js';
import type { DeadLetter, CompileSchedule, CompileScheduleInput } from './compile/operations.js';
import type { Principal } from './auth/principal.js';
import type { MemoryDetail, MemorySummary } from './recall/recall.js';
import type { RecallWrites } from './writes/recall-writes.js';
import type { SearchParams, SearchResponse } from './recall/search.js';
import type { SecretScanParams, SecretScanResult } from './ingest/secrets.js';
import type { RecallParams, SubjectRecall, SubjectRecallParams } from './recall/time-travel.js';
import type { RecomputeReport } from './compile/verify.js';
import type { ChangeEvent, ChangesPage } from './changes/feed.js';
import type { CreatedWebhook, WebhookView } from './changes/webhooks.js';
import type { ConnectorBatchInput, ConnectorBatchResult, ConnectorCursorView } from './connectors/batches.js';
import type { InspectOptions, SubjectInspection } from './recall/inspection.js';

/**
 * The runtime's surface: what every shell (HTTP, CLI, MCP, jobs, connector runs) calls. Apart
 * from the composition root (runtime.ts), so that a module the root wires in can name the surface
 * without importing the root back.
 */
export interface IngestOptions {
  inTransaction?: (tx: PoolClient) => Promise<void>;
  /** Compile the touched subjects before returning (read your writes). */
  compile?: 'wait';
}

export interface RuntimeOptions {
  /** Start pg-boss: queues, schedules and this process's workers. CLI one-shots may skip it. */
  queue?: boolean;
  /** Run workers in this process (default: when the queue is on). */
  workers?: boolean;
  /**
   * Fire the stored schedules — the compile schedules and connectors' runs — from this process
   * (pg-boss's cron monitor; default: when the queue is on). A command's short-lived runtime turns
   * it off: schedules fire from `canon start` (and `canon mcp` in a process of its own), and a
   * command that happens to run at 03:00 works the jobs it queued but never starts the night's
   * compile of every workspace.
   */
  schedules?: boolean;
  /** Apply migrations at start (under the migration lock). */
  migrate?: boolean;
}

export const ListEpisodesParams = z.object({
  subject: cleanString(z.string().min(1).max(512)).optional(),
  after: cleanString(z.string().max(64)).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const CompileRequest = z
  .strictObject({
    subject: cleanString(z.string().min(1).max(512)).optional(),
    subjects: z.array(cleanString(z.string().min(1).max(512))).min(1).max(10_000).optional(),
    all: z.literal(true).optional(),
    async: z.boolean().default(false),
  })
  .refine((r) => [r.subject, r.subjects, r.all].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of subject, subjects or all',
  });
export type CompileRequest = z.input<typeof CompileRequest>;

export type CompileResponse = { async: true; job_id: string } | { async: false; result: CompileResult | ManyResult };

export interface VerifyReport extends RecomputeReport {
  ok: boolean;
  first: CompileResult;
  second: CompileResult;
}

export interface Runtime extends RecallWrites {
  readonly config: Config;
  readonly pool: Pool;
  readonly databaseUrl: string;
  readonly embedded: EmbeddedDatabase | null;
  readonly boss: PgBoss | null;
  authenticate(bearer: string | undefined): Promise<Principal>;
  /**
   * Appends a batch (all or nothing), marks its episodes pending and enqueues a debounced
   * compile of each touched subject, in one transaction. `inTransaction` runs in that same
   * transaction — a connector saves its cursor there, so cursor and batch commit together.
   */
  ingest(principal: Principal, items: readonly unknown[], options?: IngestOptions): Promise<IngestResult & { compiled?: CompileResult[] }>;
  listEpisodes(principal: Principal, params: z.input<typeof ListEpisodesParams>): Promise<{ episodes: LoggedEpisode[]; next: string | null }>;
  /**
   * Every committed episode of a subject, in log order, as of now: a snapshot for people
   * (inspection). Unlike `listEpisodes` it does not wait for older transactions, so it is no
   * cursor to resume from.
   */
  subjectEpisodes(principal: Principal, subject: string): Promise<LoggedEpisode[]>;
  /**
   * The workspace's log as export lines (owners, maintainers): refusals come before the first
   * line; the lines read one snapshot, a page at a time.
   */
  exportLog(principal: Principal, params: ExportParams): Promise<OpenedExport>;
  /** Imports export lines (owners): batch by batch through the ingest path, then compiles and compares. */
  importLog(principal: Principal, lines: AsyncIterable<string>, options?: Omit<ImportOptions, 'enqueue' | 'chunkSize'>): Promise<ImportResult>;
  compile(principal: Principal, request: CompileRequest): Promise<CompileResponse>;
  rebuild(principal: Principal, subject: string): Promise<CompileResult>;
  verify(principal: Principal, subject: string): Promise<VerifyReport>;
  subjects(principal: Principal): ReturnType<typeof listSubjects>;
  job(principal: Principal, jobId: string): Promise<JobView>;
  /** At `as_of` (valid time, default now) as known at `known_at` (transaction time: a refold). */
  memories(principal: Principal, subject: string, params?: SubjectRecallParams): Promise<SubjectRecall>;
  memory(principal: Principal, id: string, params?: RecallParams): Promise<MemoryDetail & { known_at: string | null }>;
  /** One page of a subject as the web inspector shows it: memories, their sections, episodes per source. */
  inspectSubject(principal: Principal, subject: string, options?: InspectOptions): Promise<SubjectInspection>;
  /** Lexical search over current memory values; include_history brings superseded values back, marked. */
  search(principal: Principal, params: SearchParams): Promise<SearchResponse>;
  /** Episodes of the log holding a detected secret (owner, maintainer), a bounded page at a time. */
  secrets(principal: Principal, params: SecretScanParams): Promise<SecretScanResult>;
  /** A deterministic context bundle of a subject for a task, within a token budget. */
  context(principal: Principal, request: ContextRequest): Promise<ContextBundle>;
  /**
   * Asks the configured resolver about the subject's unanswered candidate pairs (in the resolver
   * key's workspace) and records its answers as links; null without a resolver. Compile jobs do it
   * after each compile; a rebuild never does.
   */
  /** Asks the resolver about a subject's new candidate pairs: the workspace's own (when named and set), else the server's. */
  resolveCandidates(subject: string, workspaceId?: string): Promise<ResolveResult | null>;
  /** A key's workspace's metrics; null (only when CANON_METRICS_PUBLIC=1): totals. */
  metrics(principal: Principal | null): Promise<string>;
  /** The key's workspace's nightly compile: its own, or the default while it has none. */
  schedule(principal: Principal): Promise<CompileSchedule | null>;
  setSchedule(principal: Principal, schedule: CompileScheduleInput): Promise<CompileSchedule>;
  deadLetters(principal: Principal): Promise<DeadLetter[]>;
  redrive(principal: Principal): Promise<number>;
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  listKeys(workspace?: string): ReturnType<typeof listKeys>;
  revokeKey(id: string): ReturnType<typeof revokeKey>;
  bootstrap(): Promise<CreatedKey | null>;
  /** A page of what compiles changed after a cursor, as the key may see it. */
  changes(principal: Principal, params: unknown): Promise<ChangesPage>;
  /**
   * The change feed from a cursor on, until `signal` fires or the runtime stops following
   * (`stopFollowing`, `close`): the backlog, then each change as it settles.
   */
  followChanges(principal: Principal, params: unknown, options: { signal: AbortSignal; onIdle?: () => Promise<void> }): AsyncGenerator<ChangeEvent>;
  /** Ends every open follower (a server stopping ends its streams before it waits for requests). */
  stopFollowing(): void;
  /** Where a connector instance's next run resumes, in the key's workspace (any role may read it). */
  connectorCursor(principal: Principal, instanceId: string): Promise<ConnectorCursorView>;
  /**
   * Appends a connector batch and moves the instance's cursor from `expected` to `cursor`, in one
   * transaction: a cursor another run moved since is a CursorConflictError and nothing is stored.
   */
  connectorBatch(principal: Principal, input: ConnectorBatchInput): Promise<ConnectorBatchResult>;
  createWebhook(principal: Principal, input: unknown): Promise<CreatedWebhook>;
  webhooks(principal: Principal): Promise<WebhookView[]>;
  removeWebhook(principal: Principal, id: string): Promise<{ removed: string }>;
  readiness(): Promise<{ database: boolean; queue: boolean }>;
  close(): Promise<void>;
}
