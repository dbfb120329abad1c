import { z } from 'zod';
import { canonicalJson, sha256 } from './hash.js';
import { ExportInvalidError } from './errors.js';
import { jsonFault, jsonTextTooDeep, MAX_JSON_DEPTH } from './json-guard.js';
import { ROLES } from './roles.js';
import { Instant } from './episode.js';

/**
 * The export format (NDJSON, one JSON object a line), in this order:
 *
 *   header      format name and version, the workspace, the compiler version, what was exported
 *   policies    the workspace's own policies, when it states any (never its resolver)
 *   tombstone*  the content-free erasure tombstones (hashes bound to the workspace id)
 *   episode*    the log in commit order (tx_id, position)
 *   manifest    counts, the compiler version, each subject's state_hash, the digest of every line
 *
 * Every line but the manifest carries `hash`: sha256 of the canonical JSON (RFC 8785) of the line
 * without it, so a line edited by hand is refused by its number. The manifest's `digest` chains
 * the exact text of every line before it, so a line removed, added, reordered or edited along
 * with its hash is refused too, and a file without its manifest is short.
 */
export const EXPORT_FORMAT = 'canon-export';
export const EXPORT_VERSION = 1;

/** Bytes of one line at most: an episode body's limit with room for escaping and the envelope. */
export const EXPORT_LINE_BYTES = 1024 * 1024;

/** Bytes of one import request at most (POST /v1/import); larger logs are imported from a file by the CLI, in process. */
export const IMPORT_REQUEST_BYTES = 1024 * 1024 * 1024;

const DIGEST_SEED = sha256(`${EXPORT_FORMAT}/${EXPORT_VERSION}`);

/** The chained digest after one more line. */
export function chainDigest(previous: string, line: string): string {
  return sha256(`${previous}\n${line}`);
}

export const initialDigest = (): string => DIGEST_SEED;

/** The hash a line carries: of everything in it but the hash. */
export function lineHash(record: Record<string, unknown>): string {
  const { hash: _hash, ...rest } = record;
  return sha256(canonicalJson(rest));
}

/** A record as a line of the file: its members, then its hash. */
export function hashedLine(record: Record<string, unknown>): string {
  return JSON.stringify({ ...record, hash: lineHash(record) });
}

export type ExportSelection = { all: true } | { subject: string };

export const ExportHeader = z.object({
  type: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  workspace: z.string().min(1),
  compiler_version: z.string().min(1),
  exported_at: z.string(),
  selection: z.union([z.strictObject({ all: z.literal(true) }), z.strictObject({ subject: z.string().min(1) })]),
  notes: z.array(z.string()).optional(),
  hash: z.string(),
});
export type ExportHeader = z.infer<typeof ExportHeader>;

export const ExportPolicies = z.object({
  type: z.literal('policies'),
  policies: z.record(z.string(), z.unknown()),
  /** What the workspace stated that is not exported (`resolver`), and why. */
  omitted: z.array(z.string()).optional(),
  hash: z.string(),
});
export type ExportPolicies = z.infer<typeof ExportPolicies>;

export const ExportTombstone = z.object({
  type: z.literal('tombstone'),
  key_hash: z.string().regex(/^[0-9a-f]{64}$/),
  erasure_id: z.uuid(),
  hash: z.string(),
});
export type ExportTombstone = z.infer<typeof ExportTombstone>;

/**
 * An episode as the log keeps it: what the API's episode listing answers and an export line
 * carries, declared once.
 */
export const LoggedEpisode = z.object({
  source: z.string(),
  idempotency_key: z.string(),
  subject: z.string(),
  scope: z.enum(['workspace', 'personal']),
  owner: z.string().nullable(),
  kind: z.string(),
  body: z.record(z.string(), z.unknown()),
  occurred_at: z.string(),
  occurred_at_defaulted: z.boolean(),
  observed_at: z.string().nullable(),
  ingested_at: z.string(),
  sequence: z.number().int().nullable(),
  lineage: z.string(),
  snapshot: z.boolean(),
  actor: z.object({ role: z.enum(ROLES), user: z.string().nullable() }),
  source_ref: z.string().nullable(),
});

/**
 * One episode as an export line. The fields an ingest checks (body, strings, limits) are
 * checked again by the import's append path; here only the shape the importer relies on.
 */
export const ExportEpisode = LoggedEpisode.extend({
  type: z.literal('episode'),
  // The time the log defaulted to is stored as it is, with no ingest to check it: checked here,
  // as an ingest checks the time a source gives (a year-0 instant stored broke its workspace).
  occurred_at: Instant,
  log_position: z.string().regex(/^\d{1,20}\.\d{1,19}$/),
  actor_key: z.string().nullable(),
  hash: z.string(),
});
export type ExportEpisode = z.infer<typeof ExportEpisode>;

export const ExportSubject = z.object({
  subject: z.string(),
  episodes: z.number().int().min(0),
  /** Null when the subject was never compiled. */
  state_hash: z.string().nullable(),
  compiler_version: z.string().nullable(),
  policy_fingerprint: z.string().nullable(),
  /** Episodes of the subject not yet compiled when it was exported: its state_hash predates them. */
  pending: z.number().int().min(0),
});
export type ExportSubject = z.infer<typeof ExportSubject>;

export const ExportManifest = z.object({
  type: z.literal('manifest'),
  counts: z.object({
    lines: z.number().int().min(1),
    episodes: z.number().int().min(0),
    tombstones: z.number().int().min(0),
    policies: z.number().int().min(0).max(1),
  }),
  compiler_version: z.string(),
  policy_fingerprint: z.string(),
  subjects: z.array(ExportSubject),
  digest: z.string(),
});
export type ExportManifest = z.infer<typeof ExportManifest>;

export type ExportRecord = ExportHeader | ExportPolicies | ExportTombstone | ExportEpisode | ExportManifest;

const SCHEMAS = { header: ExportHeader, policies: ExportPolicies, tombstone: ExportTombstone, episode: ExportEpisode, manifest: ExportManifest } as const;
type Kind = keyof typeof SCHEMAS;
/** The order lines come in: a kind may follow itself or any earlier kind's successor. */
const RANK: Record<Kind, number> = { header: 0, policies: 1, tombstone: 2, episode: 3, manifest: 4 };

/**
 * Reads an export a line at a time and refuses, naming the line, whatever is not a whole,
 * untouched export: pure (no I/O), so the CLI can check a file before sending it and the
 * runtime can check a stream while it imports it.
 */
export class ExportReader {
  private lineNo = 0;
  private last: Kind | null = null;
  private digest = DIGEST_SEED;
  private counts = { lines: 0, episodes: 0, tombstones: 0, policies: 0 };
  private manifest: ExportManifest | null = null;
  header: ExportHeader | null = null;

  /** The 1-based number of the last line read. */
  get line(): number {
    return this.lineNo;
  }

  /** Reads the next line; null for a blank line. */
  read(text: string): ExportRecord | null {
    this.lineNo += 1;
    const n = this.lineNo;
    if (text.trim() === '') return null;
    if (this.manifest) throw new ExportInvalidError(n, 'a line after the manifest');
    if (Buffer.byteLength(text, 'utf8') > EXPORT_LINE_BYTES) throw new ExportInvalidError(n, `longer than ${EXPORT_LINE_BYTES} bytes`);
    // On the raw text, before anything recurses into it: an episode's body one level down.
    if (jsonTextTooDeep(text, MAX_JSON_DEPTH + 2)) throw new ExportInvalidError(n, `nested deeper than ${MAX_JSON_DEPTH + 2} levels`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ExportInvalidError(n, `not JSON: ${(err as Error).message}`);
    }
    // Before anything hashes the line: a number beyond a double (1e400 parses to Infinity) or a
    // malformed string is this line's fault, not a failure of the import.
    const fault = jsonFault(value, Number.POSITIVE_INFINITY);
    if (fault) throw new ExportInvalidError(n, `${fault.path || 'line'}: ${fault.message}`);
    const type = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || !(type in SCHEMAS)) throw new ExportInvalidError(n, 'not a line of a Canon export (no known "type")');
    const kind = type as Kind;
    const parsed = SCHEMAS[kind].safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ExportInvalidError(n, `${kind}: ${issue.path.join('.') || 'line'}: ${issue.message}`);
    }
    if (this.last === null && kind !== 'header') throw new ExportInvalidError(n, 'the first line of an export is its header');
    if (this.last !== null && (kind === 'header' || RANK[kind] < RANK[this.last] || (kind === 'policies' && this.last === 'policies'))) {
      throw new ExportInvalidError(n, `a ${kind} line after a ${this.last} line`);
    }
    this.last = kind;
    if (kind === 'manifest') {
      const m = parsed.data as ExportManifest;
      const c = this.counts;
      if (m.counts.lines !== c.lines || m.counts.episodes !== c.episodes || m.counts.tombstones !== c.tombstones || m.counts.policies !== c.policies) {
        throw new ExportInvalidError(
          n,
          `the manifest counts ${m.counts.lines} lines, ${m.counts.episodes} episodes, ${m.counts.tombstones} tombstones; the file holds ${c.lines}, ${c.episodes}, ${c.tombstones}`,
        );
      }
      if (m.digest !== this.digest) throw new ExportInvalidError(n, 'the digest of the lines before the manifest differs from the manifest: a line was changed, added or removed');
      const episodes = m.subjects.reduce((sum, s) => sum + s.episodes, 0);
      if (episodes !== c.episodes) throw new ExportInvalidError(n, `the manifest's subjects count ${episodes} episodes, the file holds ${c.episodes}`);
      this.manifest = m;
      return m;
    }
    const record = value as Record<string, unknown>;
    if (lineHash(record) !== record['hash']) throw new ExportInvalidError(n, `the ${kind} line's content does not match its hash: it was changed`);
    this.digest = chainDigest(this.digest, text);
    this.counts.lines += 1;
    if (kind === 'episode') this.counts.episodes += 1;
    else if (kind === 'tombstone') this.counts.tombstones += 1;
    else if (kind === 'policies') this.counts.policies += 1;
    else this.header = parsed.data as ExportHeader;
    return parsed.data as ExportRecord;
  }

  /** At the end of the input: the manifest, or a refusal of a file that stops short of it. */
  finish(): ExportManifest {
    if (this.manifest) return this.manifest;
    if (this.lineNo === 0 || this.header === null) throw new ExportInvalidError(Math.max(this.lineNo, 1), 'not a Canon export: no header');
    throw new ExportInvalidError(this.lineNo, `the file ends after ${this.counts.episodes} episodes without its manifest: it is truncated`);
  }
}

/** Writes an export's lines in order and keeps the counts and the digest its manifest needs. */
export class ExportWriter {
  private digest = DIGEST_SEED;
  private counts = { lines: 0, episodes: 0, tombstones: 0, policies: 0 };

  /** The line for a record (without its hash), counted into the manifest. */
  line(record: Record<string, unknown> & { type: Exclude<Kind, 'manifest'> }): string {
    const text = hashedLine(record);
    this.digest = chainDigest(this.digest, text);
    this.counts.lines += 1;
    if (record.type === 'episode') this.counts.episodes += 1;
    else if (record.type === 'tombstone') this.counts.tombstones += 1;
    else if (record.type === 'policies') this.counts.policies += 1;
    return text;
  }

  manifest(rest: Omit<ExportManifest, 'type' | 'counts' | 'digest'>): string {
    const m: ExportManifest = { type: 'manifest', counts: { ...this.counts }, ...rest, digest: this.digest };
    return JSON.stringify(m);
  }
}
