import type { LoggedEpisode } from '@canon/store';
import type {
  CompileRequest,
  CompileResponse,
  CompileResult,
  ContextBundle,
  ContextRequest,
  IngestItemResult,
  JobView,
  LinkResult,
  MemoryDetail,
  MemorySummary,
  OpenConflict,
  SearchResponse,
} from '@canon/runtime';

export interface SubjectCounts {
  subject: string;
  episodes: number;
  memories: number;
  pending: number;
  open_conflicts: number;
}

export interface MemoriesAt {
  subject: string;
  at: string;
  memories: MemorySummary[];
}

/**
 * What the MCP tools need from Canon, with the caller's key already bound: the same runtime
 * functions the HTTP API calls, either in this process (`runtimePort`) or over HTTP
 * (`httpPort`). Role and scope limits are the runtime's, whichever side of the wire it is on.
 */
export interface CanonPort {
  readonly mode: 'http' | 'local';
  /** Appends episodes and compiles the touched subjects before answering (read your writes). */
  ingestAndCompile(items: unknown[]): Promise<{ items: IngestItemResult[]; compiled: CompileResult[] }>;
  subjects(): Promise<SubjectCounts[]>;
  memories(subject: string, asOf?: string): Promise<MemoriesAt>;
  memory(id: string, asOf?: string): Promise<MemoryDetail>;
  /** The log of a subject in order, one page at a time (`after` = the previous page's `next`). */
  episodes(subject: string, after?: string, limit?: number): Promise<{ episodes: LoggedEpisode[]; next: string | null }>;
  /** Open disagreements, of one subject or the workspace. */
  conflicts(subject?: string): Promise<OpenConflict[]>;
  /** Lexical search over current memory values. */
  search(q: string, subject: string | undefined, limit: number): Promise<SearchResponse>;
  context(request: ContextRequest): Promise<ContextBundle>;
  /** Two memories are one fact or distinct: a link episode, compiled at once. */
  link(input: { memories: [string, string]; same: boolean; idempotency_key: string; reason?: string }): Promise<LinkResult>;
  compile(request: CompileRequest): Promise<CompileResponse>;
  job(id: string): Promise<JobView>;
  close(): Promise<void>;
}
