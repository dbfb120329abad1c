import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { LIMITS, readDocument, subjectFault, type EpisodeInput } from '@canon/core';
import {
  ConnectorError,
  definePredicates,
  key,
  parseConfig,
  type Connector,
  type ConnectorDefinition,
  type JsonValue,
  type SyncBatch,
  type SyncOptions,
} from '@canon/connector-kit';
import { walk } from './walk.js';

export const WORKSPACE_SOURCE = 'workspace';

/**
 * Files a scan passes over unread (gitignore syntax, matched from the root): where credentials
 * live rather than facts. Ingest would redact the secrets it recognises in them anyway; not
 * reading them at all also keeps out what no rule recognises (a bare password on a line of
 * `.env`, a keystore's bytes). Templates meant to be committed (`.env.example`, `.env.sample`,
 * `.env.template`) are read: they document configuration. `secretFiles` adds patterns to this
 * list and `!pattern` takes one back; `includeSecretFiles` reads everything.
 */
export const DEFAULT_SECRET_FILES: readonly string[] = Object.freeze([
  '.env',
  '.env.*',
  '!.env.example',
  '!.env.sample',
  '!.env.template',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '!id_*.pub',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  'credentials.json',
  '**/.aws/credentials',
  'kubeconfig',
  '**/.kube/config',
  // Terraform state holds every secret its resources were given, in plain text.
  '*.tfstate',
  '*.tfstate.backup',
  // libpq's password file, a registry login (base64 user:password), secrets files by name.
  '.pgpass',
  '**/.docker/config.json',
  'secrets.toml',
  'secrets.json',
  'secrets.yml',
  'secrets.yaml',
  '.htpasswd',
]);

export const WorkspaceConfig = z.strictObject({
  /** The folder to scan. */
  path: z.string().min(1),
  /** The root id in subjects and keys; default: the folder's name. No ':' (it separates the path). */
  id: z.string().min(1).max(200).regex(/^[^:]+$/, 'must not contain ":"').optional(),
  /** Larger files are skipped (`too_large`); at most the ingest text limit. */
  maxFileBytes: z.number().int().min(1).max(LIMITS.text).default(LIMITS.text),
  /** Files left out on top of .gitignore: gitignore-style patterns, applied at the root. */
  ignore: z.array(z.string().min(1)).default([]),
  /**
   * When not empty, only files matching one of these gitignore-style patterns are read
   * (`docs/**`, `*.md`, `package.json`); applied after .gitignore and `ignore`.
   */
  include: z.array(z.string().min(1)).default([]),
  /** Patterns added to `DEFAULT_SECRET_FILES` (gitignore syntax; `!pattern` reads a default back). */
  secretFiles: z.array(z.string().min(1)).default([]),
  /** Read secret files too (their recognised secrets are still redacted at ingest). */
  includeSecretFiles: z.boolean().default(false),
  /** Episodes per batch (one transaction each). */
  batchSize: z.number().int().min(1).max(1000).default(100),
});
export type WorkspaceConfig = z.output<typeof WorkspaceConfig>;

export const WORKSPACE_PREDICATES = definePredicates({
  file_hash: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
});

/**
 * The cursor: per path, the content hash last stored (null once the file vanished) and `n`,
 * the index of the path's last event. The inventory is also what the next key chains from.
 */
export const WorkspaceCursor = z.object({
  files: z.record(z.string(), z.object({ hash: z.string().nullable(), n: z.number().int().min(0) })),
  /**
   * Files whose subject was erased, content-free: a digest of the path → a digest of the path and
   * the content it had. Such a file, unchanged, is passed over (read again it would be stored
   * again); deleted, it is not retracted (nothing of it is left to end); edited, it is new.
   */
  erased: z.record(z.string(), z.string()).optional(),
});
export type WorkspaceCursor = z.infer<typeof WorkspaceCursor>;

/** One observed change of one path: the input of `toEpisodes`. */
export type WorkspaceItem =
  | { change: 'version'; rootId: string; path: string; n: number; previousHash: string | null; hash: string; text: string }
  | { change: 'vanished'; rootId: string; path: string; n: number; previousHash: string };

/**
 * A path whose subject the door would refuse as one that passes for another's — or with a space at
 * either end of a folder's or a file's name, which the door cannot see inside a subject (` notes.md`
 * beside `notes.md`).
 */
function unsafeName(rootId: string, path: string): boolean {
  return subjectFault(fileSubject(rootId, path)) !== null || path.split('/').some((segment) => /^\s|\s$/u.test(segment));
}

/** The subject (and lineage) of one file: `workspace:<root id>:<path>`. */
export function fileSubject(rootId: string, path: string): string {
  return `workspace:${rootId}:${path}`;
}

/**
 * The key chains the path's history: `workspace|root|path|n|previous hash|hash`. `n` (the
 * path's event index) keeps A → B → A → B and delete → re-create distinct, where the pair
 * (previous hash, hash) alone would repeat and the later event would be taken for a duplicate.
 */
export function workspaceKey(item: WorkspaceItem): string {
  const hash = item.change === 'version' ? item.hash : '';
  return key(['workspace', item.rootId, item.path, String(item.n), item.previousHash ?? '', hash]);
}

/** Maps one change to its episode. Pure: no clock, no absolute path. */
export function workspaceToEpisodes(item: WorkspaceItem): EpisodeInput[] {
  const subject = fileSubject(item.rootId, item.path);
  const common = {
    source: WORKSPACE_SOURCE,
    idempotency_key: workspaceKey(item),
    subject,
    scope: 'workspace' as const,
    lineage: subject,
    snapshot: true,
    source_ref: item.path,
  };
  if (item.change === 'version') {
    return [
      {
        ...common,
        kind: 'document',
        body: {
          text: item.text,
          path: item.path,
          claims: [{ predicate: 'file_hash', value: item.hash, qualifiers: { path: item.path }, op: 'assert' }],
        },
      },
    ];
  }
  // A snapshot that states nothing: every key of the lineage ends here (design §4). The inventory
  // entry is also retracted explicitly, and `retract_lineage` says so in words.
  return [
    {
      ...common,
      kind: 'retraction',
      body: {
        text: '',
        path: item.path,
        retract_lineage: true,
        claims: [{ predicate: 'file_hash', value: item.previousHash, qualifiers: { path: item.path }, op: 'retract' }],
      },
    },
  ];
}

type ReadOutcome = { ok: true; text: string; hash: string } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

async function readText(absolute: string, maxBytes: number): Promise<ReadOutcome> {
  const info = await stat(absolute);
  if (info.size > maxBytes) return { ok: false, reason: 'too_large' };
  const bytes = await readFile(absolute);
  if (bytes.length > maxBytes) return { ok: false, reason: 'too_large' };
  // Git's heuristic: a NUL byte means binary. PostgreSQL text refuses U+0000 anyway.
  if (bytes.includes(0)) return { ok: false, reason: 'binary' };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'binary' };
  }
  return { ok: true, text, hash: sha256Bytes(bytes) };
}

/** The file's sha256, as `sha256sum` prints it. Not xxh64: a collision would silently hide an edit. */
function sha256Bytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function createWorkspaceConnector(rawConfig: unknown): Connector<WorkspaceConfig, WorkspaceItem> {
  const config = parseConfig(WORKSPACE_SOURCE, WorkspaceConfig, rawConfig);
  const root = resolve(config.path);
  const rootId = config.id ?? basename(root);

  async function check() {
    try {
      const info = await stat(root);
      if (!info.isDirectory()) return { ok: false, message: `not a folder: ${root}` };
      if (rootId.includes(':')) return { ok: false, message: `the folder name ${rootId} contains ":"; set an id` };
      return { ok: true, message: `workspace ${rootId} at ${root}` };
    } catch {
      return { ok: false, message: `cannot read folder ${root}: check the path` };
    }
  }

  async function* sync({ cursor, signal }: SyncOptions): AsyncGenerator<SyncBatch> {
    if (rootId.includes(':')) throw new ConnectorError('invalid_config', `the folder name ${rootId} contains ":"; set an id`);
    let inventory: WorkspaceCursor['files'] = {};
    // Kept as a Map while the scan runs: a new file asks it once, whatever the number of marks.
    let erased = new Map<string, string>();
    if (cursor !== null) {
      const parsed = WorkspaceCursor.safeParse(cursor);
      if (!parsed.success) throw new ConnectorError('invalid_cursor', 'the stored workspace cursor is not an inventory; reset the connector cursor');
      inventory = { ...parsed.data.files };
      erased = new Map(Object.entries(parsed.data.erased ?? {}));
    }
    const secretFiles = config.includeSecretFiles ? [] : [...DEFAULT_SECRET_FILES, ...config.secretFiles];
    const { files, skipped: walkSkipped } = await walk(root, config.ignore, signal, secretFiles, config.include);
    const total = files.length;
    const seen = new Set<string>();
    let episodes: EpisodeInput[] = [];
    let skipped: Record<string, number> = { ...walkSkipped };
    let statements: Record<string, number> = {};
    let fetched = 0;
    const flush = (): SyncBatch => {
      const batch = { episodes, cursor: snapshot(inventory, Object.fromEntries(erased)), fetched, skipped, statements, total };
      episodes = [];
      skipped = {};
      statements = {};
      fetched = 0;
      return batch;
    };
    const skip = (reason: string) => {
      skipped[reason] = (skipped[reason] ?? 0) + 1;
    };

    for (const file of files) {
      signal.throwIfAborted();
      fetched += 1;
      // In bytes, as the door measures a subject: 300 accented letters are 300 characters and 600 bytes.
      if (Buffer.byteLength(fileSubject(rootId, file.path), 'utf8') > LIMITS.shortString) {
        skip('path_too_long');
        continue;
      }
      // A name holding a control or invisible character, or white space at an end, is no subject
      // the door takes (it would pass for another's): the file is passed over, not the whole run.
      if (unsafeName(rootId, file.path)) {
        skip('unsafe_name');
        continue;
      }
      const read = await readText(file.absolute, config.maxFileBytes);
      if (!read.ok) {
        skip(read.reason);
        continue;
      }
      seen.add(file.path);
      const previous = inventory[file.path];
      if (previous?.hash === read.hash) continue;
      if (!previous && erased.size > 0) {
        const at = pathMark(file.path);
        const mark = erased.get(at);
        // Erased and unchanged since: passed over, so the erasure holds.
        if (mark === contentMark(file.path, read.hash)) {
          skip('erased');
          continue;
        }
        // Edited since the erasure: what it says now is new.
        erased.delete(at);
      }
      const n = previous ? previous.n + 1 : 0;
      const item: WorkspaceItem = { change: 'version', rootId, path: file.path, n, previousHash: previous?.hash ?? null, hash: read.hash, text: read.text };
      const [episode] = workspaceToEpisodes(item);
      if (!episode || Buffer.byteLength(JSON.stringify(episode.body), 'utf8') > LIMITS.episodeBodyBytes) {
        // Escaping can grow a file past the body limit; it is skipped, not half-stored.
        seen.delete(file.path);
        skip('too_large');
        continue;
      }
      episodes.push(episode);
      inventory[file.path] = { hash: read.hash, n };
      // The compiler reads this version with the same pure extractor: what it will leave out
      // (two values of one key in one version, a settings file that does not parse) is said
      // now, in the sync's answer, rather than found later as a missing memory.
      for (const [reason, count] of Object.entries(readDocument(file.path, read.text).dropped)) {
        statements[reason] = (statements[reason] ?? 0) + count;
      }
      if (episodes.length >= config.batchSize) yield flush();
    }

    // The mark of an erased file no longer here goes: a file that appears there later is new.
    if (erased.size > 0) {
      const here = new Set(files.map((f) => pathMark(f.path)));
      for (const mark of [...erased.keys()]) if (!here.has(mark)) erased.delete(mark);
    }
    // Whatever was tracked and is no longer readable here (deleted, now ignored, now binary)
    // leaves the workspace's memory.
    for (const path of Object.keys(inventory).sort()) {
      const entry = inventory[path];
      if (!entry || entry.hash === null || seen.has(path)) continue;
      // A file an older Canon stored under a name the door now refuses: its vanishing could not be
      // written either, so its entry stays as it is rather than refuse the run's last batch.
      if (unsafeName(rootId, path)) continue;
      const n = entry.n + 1;
      episodes.push(...workspaceToEpisodes({ change: 'vanished', rootId, path, n, previousHash: entry.hash }));
      inventory[path] = { hash: null, n };
      if (episodes.length >= config.batchSize) yield flush();
    }
    yield flush();
  }

  return Object.freeze({
    id: WORKSPACE_SOURCE,
    configSchema: WorkspaceConfig,
    config,
    predicates: WORKSPACE_PREDICATES,
    check,
    sync,
    toEpisodes: workspaceToEpisodes,
  });
}

function snapshot(files: WorkspaceCursor['files'], erased: Readonly<Record<string, string>> = {}): JsonValue {
  const sorted: Record<string, JsonValue> = {};
  for (const path of Object.keys(files).sort()) {
    const entry = files[path];
    if (entry) sorted[path] = { hash: entry.hash, n: entry.n };
  }
  const marks = Object.keys(erased).sort();
  if (marks.length === 0) return { files: sorted };
  return { files: sorted, erased: Object.fromEntries(marks.map((k) => [k, erased[k]!])) };
}

/** The content-free marks of an erased file (see `WorkspaceCursor.erased`). */
const pathMark = (path: string) => createHash('sha256').update(`path\u0000${path}`).digest('hex');
const contentMark = (path: string, hash: string | null) => createHash('sha256').update(`content\u0000${path}\u0000${hash ?? ''}`).digest('hex');

/**
 * The cursor of an instance after an erasure of these subjects: each file of this root whose
 * subject was erased leaves the inventory for a content-free mark (`WorkspaceCursor.erased`).
 * An instance id other than `workspace:<root id>` (one given by hand) matches any root.
 */
export function forgetWorkspaceSubjects(cursor: unknown, subjects: readonly string[], instanceId: string): unknown {
  const parsed = WorkspaceCursor.safeParse(cursor);
  if (!parsed.success) return undefined;
  const ownRoot = instanceId.startsWith('workspace:') ? instanceId.slice('workspace:'.length) : null;
  const files = { ...parsed.data.files };
  const erased = { ...(parsed.data.erased ?? {}) };
  let changed = false;
  for (const subject of subjects) {
    if (!subject.startsWith('workspace:')) continue;
    const rest = subject.slice('workspace:'.length);
    const colon = rest.indexOf(':');
    if (colon < 0) continue;
    const path = rest.slice(colon + 1);
    const entry = files[path];
    if (!entry || (ownRoot !== null && rest.slice(0, colon) !== ownRoot)) continue;
    delete files[path];
    // A file already gone from the folder needs no mark: a later one at that path is new.
    if (entry.hash !== null) erased[pathMark(path)] = contentMark(path, entry.hash);
    changed = true;
  }
  return changed ? snapshot(files, erased) : undefined;
}

export const workspaceConnector: ConnectorDefinition<WorkspaceConfig, WorkspaceItem> = Object.freeze({
  id: WORKSPACE_SOURCE,
  configSchema: WorkspaceConfig,
  predicates: WORKSPACE_PREDICATES,
  create: createWorkspaceConnector,
  forgetSubjects: forgetWorkspaceSubjects,
});
