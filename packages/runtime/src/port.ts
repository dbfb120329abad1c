import type { listSubjects, LoggedEpisode } from '@canon/store';
import type { CompileResult } from './compile/compile.js';
import type { ConflictPage, ResolveInput } from './writes/conflicts.js';
import type { ConnectorCursorView } from './connectors/batches.js';
import type { ContextBundle, ContextRequest } from './recall/context.js';
import type { ErasureResult, ErasureTarget } from './erasure/erasure.js';
import type { IngestResult } from './ingest/ingest.js';
import type { JobView } from './compile/job-status.js';
import type { LinkInput, LinkResult } from './links/link-memories.js';
import type { DeadLetter, CompileSchedule, CompileScheduleInput } from './compile/operations.js';
import type { WorkspacePolicies } from './writes/policies.js';
import type { PoliciesView, PolicyChange } from './writes/policy-change.js';
import type { PreviewResult } from './compile/preview.js';
import type { ImportResult } from './export/import.js';
import type { Principal } from './auth/principal.js';
import type { ProposalInput, ProposalResult } from './writes/proposals.js';
import type { MemoryDetail } from './recall/recall.js';
import type { SearchParams, SearchResponse } from './recall/search.js';
import type { SecretScanParams, SecretScanResult } from './ingest/secrets.js';
import type { ChangesPage } from './changes/feed.js';
import type { CreatedWebhook, WebhookInput, WebhookView } from './changes/webhooks.js';
import type { CompileRequest, CompileResponse, Runtime, VerifyReport } from './surface.js';
import type { RecallParams, SubjectRecall, SubjectRecallParams } from './recall/time-travel.js';

/**
 * The answer to an ingested batch, as POST /v1/episodes and a connector's batch both give it:
 * each item's outcome (and, with `compile: 'wait'`, each claim's decision), the counts, the
 * documents' statements that give no fact (when there are any) and the compiles waited for.
 */
export type IngestAnswer = Pick<IngestResult, 'items' | 'created' | 'duplicates' | 'erased' | 'redacted' | 'refused'> & {
  statements?: Record<string, number>;
  compiled?: CompileResult[];
};

export function ingestAnswer(result: IngestResult & { compiled?: CompileResult[] }): IngestAnswer {
  return {
    items: result.items,
    created: result.created,
    duplicates: result.duplicates,
    erased: result.erased,
    redacted: result.redacted,
    refused: result.refused,
    ...(Object.keys(result.statements).length > 0 ? { statements: result.statements } : {}),
    ...(result.compiled ? { compiled: result.compiled } : {}),
  };
}

export type ConnectorBatchAnswer = IngestAnswer & { subjects: string[] };
export type SubjectCounts = Awaited<ReturnType<typeof listSubjects>>[number];

/**
 * The runtime's surface bound to a principal: what the CLI, `canon mcp`, `canon inspect` and a
 * connector run fed from elsewhere call, with one set of types whichever side of the wire the
 * runtime is on — in this process (`localPort`) or at a Canon server (`httpPort` of
 * `@canon/client`). Role and scope limits are the runtime's either way.
 */
export interface CanonPort {
  readonly mode: 'http' | 'local';
  /**
   * A stable name of the credential this port writes with, nothing to recover it from: MCP
   * `remember` keys a call by it and its arguments, so one writer's retry is a duplicate and
   * another writer's same words are a statement of their own.
   */
  readonly writer: string;
  /** Appends episodes; with `compile: 'wait'` compiles the touched subjects first and answers each claim's decision. */
  ingest(items: readonly unknown[], options?: { compile?: 'wait' }): Promise<IngestAnswer>;
  /** The log of a subject in order, a page at a time (`after` = the previous page's `next`). */
  episodes(subject: string, after?: string, limit?: number): Promise<{ episodes: LoggedEpisode[]; next: string | null }>;
  compile(request: CompileRequest): Promise<CompileResponse>;
  job(id: string): Promise<JobView>;
  rebuild(subject: string): Promise<CompileResult>;
  verify(subject: string): Promise<VerifyReport>;
  subjects(): Promise<SubjectCounts[]>;
  /** One page of a subject's memories (`everyPage` of `@canon/core/pages` reads them all). */
  memories(subject: string, params?: SubjectRecallParams): Promise<SubjectRecall>;
  memory(id: string, params?: RecallParams): Promise<MemoryDetail & { known_at?: string | null }>;
  propose(memoryId: string, input: ProposalInput, precondition?: { if_match?: string }): Promise<ProposalResult>;
  search(params: SearchParams): Promise<SearchResponse>;
  context(request: ContextRequest): Promise<ContextBundle>;
  secrets(params: SecretScanParams): Promise<SecretScanResult>;
  /** A page of open conflicts; pass `next` as `after` for the page after it. */
  conflicts(query?: { subject?: string; limit?: number; after?: string }): Promise<ConflictPage>;
  resolve(memoryId: string, input: ResolveInput): Promise<Omit<ProposalResult, 'outcome'> & { outcome: 'applied' | 'duplicate' }>;
  policies(): Promise<PoliciesView>;
  setPolicies(input: WorkspacePolicies): Promise<PolicyChange>;
  /** What compiling under proposed policies (or this build's compiler) would change; writes nothing. */
  preview(input?: { policies?: WorkspacePolicies }): Promise<PreviewResult>;
  erase(target: ErasureTarget): Promise<ErasureResult>;
  /** Two memories are one fact or distinct: a link episode, compiled at once. */
  link(input: LinkInput): Promise<LinkResult>;
  schedule(): Promise<CompileSchedule | null>;
  setSchedule(schedule: CompileScheduleInput): Promise<CompileSchedule>;
  deadLetters(): Promise<DeadLetter[]>;
  redrive(): Promise<number>;
  connectorCursor(instanceId: string): Promise<ConnectorCursorView>;
  /** Appends a connector batch and moves the instance's cursor from `expected` to `cursor`, in one transaction. */
  connectorBatch(instanceId: string, batch: { episodes: readonly unknown[]; cursor: unknown; expected: unknown }): Promise<ConnectorBatchAnswer>;
  /** The workspace's log as export lines (owner, maintainer), and how many episodes they hold. */
  exportLog(params: { subject?: string }): Promise<{ episodes: number; lines: AsyncIterable<string> }>;
  /** Imports export lines (owner); progress in episodes (in process) or bytes sent (to a server). */
  importLog(lines: AsyncIterable<string>, options?: PortImportOptions): Promise<ImportResult>;
  /** A page of what compiles changed after a cursor (`next` resumes; `canon changes --follow` polls it). */
  changes(params?: { after?: string; subject?: string; predicate?: string; limit?: number }): Promise<ChangesPage>;
  /** Adds a webhook (owner, maintainer) bound to this key; its secret is in the answer only. */
  createWebhook(input: WebhookInput): Promise<CreatedWebhook>;
  webhooks(): Promise<WebhookView[]>;
  removeWebhook(id: string): Promise<{ removed: string }>;
  close(): Promise<void>;
}

export interface PortImportOptions {
  keepPolicies?: boolean;
  onProgress?: (progress: { episodes?: number; bytes?: number }) => void;
}

/**
 * The port over a runtime in this process, every call made as the key's principal — what the
 * HTTP routes do, so a reader key cannot write here either. `close` is the caller's (whoever
 * started the runtime stops it).
 */
export function localPort(runtime: Runtime, principal: Principal, close: () => Promise<void> = async () => undefined): CanonPort {
  return {
    mode: 'local',
    writer: `key:${principal.key_id}`,
    ingest: async (items, options = {}) => ingestAnswer(await runtime.ingest(principal, items, options)),
    // In process, read the subject's committed episodes whole: inspection is a snapshot, not a
    // cursor, and need not wait for unrelated transactions to end.
    episodes: async (subject, after) => (after ? { episodes: [], next: null } : { episodes: await runtime.subjectEpisodes(principal, subject), next: null }),
    compile: (request) => runtime.compile(principal, request),
    job: (id) => runtime.job(principal, id),
    rebuild: (subject) => runtime.rebuild(principal, subject),
    verify: (subject) => runtime.verify(principal, subject),
    subjects: () => runtime.subjects(principal),
    memories: (subject, params) => runtime.memories(principal, subject, params),
    memory: (id, params) => runtime.memory(principal, id, params),
    propose: (memoryId, input, precondition) => runtime.propose(principal, memoryId, input, precondition),
    search: (params) => runtime.search(principal, params),
    context: (request) => runtime.context(principal, request),
    secrets: (params) => runtime.secrets(principal, params),
    conflicts: (query) => runtime.conflicts(principal, query),
    resolve: (memoryId, input) => runtime.resolve(principal, memoryId, input),
    policies: () => runtime.policies(principal),
    setPolicies: (input) => runtime.setPolicies(principal, input),
    preview: (input = {}) => runtime.preview(principal, input),
    erase: (target) => runtime.erase(principal, target),
    link: (input) => runtime.link(principal, input),
    schedule: () => runtime.schedule(principal),
    setSchedule: (schedule) => runtime.setSchedule(principal, schedule),
    deadLetters: () => runtime.deadLetters(principal),
    redrive: () => runtime.redrive(principal),
    connectorCursor: (instanceId) => runtime.connectorCursor(principal, instanceId),
    async connectorBatch(instanceId, batch) {
      const result = await runtime.connectorBatch(principal, { instanceId, ...batch });
      return { ...ingestAnswer(result), subjects: result.subjects };
    },
    exportLog: (params) => runtime.exportLog(principal, params.subject !== undefined ? { subject: params.subject } : { all: true }),
    importLog: (lines, options = {}) =>
      runtime.importLog(principal, lines, { ...(options.keepPolicies ? { keepPolicies: true } : {}), onProgress: (p) => options.onProgress?.({ episodes: p.episodes }) }),
    changes: (params = {}) => runtime.changes(principal, params),
    createWebhook: (input) => runtime.createWebhook(principal, input),
    webhooks: () => runtime.webhooks(principal),
    removeWebhook: (id) => runtime.removeWebhook(principal, id),
    close,
  };
}
