import { z } from 'zod';
import type { ClaimInput, EpisodeInput } from '@canon/core';
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
import { git } from './git-cli.js';
import { commitExists, firstParentCommits, packageChanges, resolveRepoId, type FirstParentCommit, type PackageChange } from './history.js';
import { diffPackage } from './package-diff.js';

export const GIT_SOURCE = 'git';

export const GitConfig = z.strictObject({
  /** The repository folder. */
  path: z.string().min(1),
  /** The repository id in subjects and keys; default: origin's owner/name, else the folder name. */
  id: z.string().min(1).max(200).optional(),
  /** The branch (or any ref) whose first-parent history is synced. */
  ref: z.string().min(1).default('HEAD'),
  /** Commits per batch (one transaction each). */
  batchSize: z.number().int().min(1).max(1000).default(200),
});
export type GitConfig = z.output<typeof GitConfig>;

export const GIT_PREDICATES = definePredicates({
  dependency: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
  package_name: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
  package_version: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
});

/** The cursor: the last synced first-parent commit. */
export const GitCursor = z.object({ sha: z.string().regex(/^[0-9a-f]{40,64}$/), sequence: z.number().int().min(0) });
export type GitCursor = z.infer<typeof GitCursor>;

/** One first-parent commit with the package.json changes it makes: the input of `toEpisodes`. */
export interface GitCommitItem extends FirstParentCommit {
  repoId: string;
  packages: PackageChange[];
}

/** The cursor's commit is gone from the synced branch: history was rewritten (rebase, force-push, reset). */
export class GitHistoryRewrittenError extends ConnectorError {
  override readonly name = 'GitHistoryRewrittenError';
  readonly cursorSha: string;

  constructor(cursorSha: string, ref: string, reason: 'unknown' | 'not_first_parent') {
    const why = reason === 'unknown' ? 'no longer exists in the repository' : `is no longer on the first-parent history of ${ref}`;
    super(
      'history_rewritten',
      `history was rewritten: the last synced commit ${cursorSha.slice(0, 12)} ${why}; ` +
        'reset the connector cursor to re-sync from the first commit (already stored commits come back as duplicates)',
    );
    this.cursorSha = cursorSha;
  }
}

/** Maps one commit to its episode. Pure: the same item always gives the same episode and key. */
export function commitToEpisodes(item: GitCommitItem): EpisodeInput[] {
  const claims: ClaimInput[] = item.packages.flatMap((change) =>
    change.after === null ? [] : diffPackage(change.path, change.before, change.after, item.committedAt),
  );
  return [
    {
      source: GIT_SOURCE,
      idempotency_key: key(['git', item.repoId, 'commit', item.sha]),
      subject: `repo:${item.repoId}`,
      scope: 'workspace',
      kind: 'commit',
      // The message stays out of `text`: commit subjects would otherwise become note memories.
      body: { commit: { sha: item.sha, message: item.message }, claims },
      occurred_at: item.committedAt,
      sequence: item.sequence,
      // The branch's history is one lineage whose versions are its commits (not snapshots: each
      // commit states only what it changed).
      lineage: `git:${item.repoId}`,
      snapshot: false,
      source_ref: item.sha,
    },
  ];
}

export function createGitConnector(rawConfig: unknown): Connector<GitConfig, GitCommitItem> {
  const config = parseConfig(GIT_SOURCE, GitConfig, rawConfig);

  async function check(signal?: AbortSignal) {
    try {
      await git(config.path, ['rev-parse', '--verify', '--quiet', `${config.ref}^{commit}`], { signal });
      const id = await resolveRepoId(config.path, config.id, signal);
      return { ok: true, message: `git repository ${id} at ${config.path}, ref ${config.ref}` };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  async function* sync({ cursor, since, signal }: SyncOptions): AsyncGenerator<SyncBatch> {
    const repoId = await resolveRepoId(config.path, config.id, signal);
    const commits = await firstParentCommits(config.path, config.ref, signal);
    let start = 0;
    if (cursor !== null) {
      const parsed = GitCursor.safeParse(cursor);
      if (!parsed.success) throw new ConnectorError('invalid_cursor', 'the stored git cursor is not {sha, sequence}; reset the connector cursor');
      const at = commits.findIndex((c) => c.sha === parsed.data.sha);
      if (at < 0) {
        const exists = await commitExists(config.path, parsed.data.sha, signal);
        throw new GitHistoryRewrittenError(parsed.data.sha, config.ref, exists ? 'not_first_parent' : 'unknown');
      }
      start = at + 1;
    }
    const sinceMs = since === undefined ? null : Date.parse(since);
    const todo = commits.slice(start).filter((c) => sinceMs === null || Date.parse(c.committedAt) >= sinceMs);
    const total = todo.length;
    for (let i = 0; i < todo.length; i += config.batchSize) {
      const page = todo.slice(i, i + config.batchSize);
      const episodes: EpisodeInput[] = [];
      let invalid = 0;
      for (const commit of page) {
        signal.throwIfAborted();
        const packages = await packageChanges(config.path, commit, signal);
        invalid += packages.filter((p) => p.after === null).length;
        episodes.push(...commitToEpisodes({ ...commit, repoId, packages }));
      }
      const last = page[page.length - 1];
      if (!last) continue;
      const next: JsonValue = { sha: last.sha, sequence: last.sequence };
      yield { episodes, cursor: next, fetched: page.length, total, ...(invalid > 0 ? { skipped: { invalid_package_json: invalid } } : {}) };
    }
  }

  return Object.freeze({
    id: GIT_SOURCE,
    configSchema: GitConfig,
    config,
    predicates: GIT_PREDICATES,
    check,
    sync,
    toEpisodes: commitToEpisodes,
  });
}

export const gitConnector: ConnectorDefinition<GitConfig, GitCommitItem> = Object.freeze({
  id: GIT_SOURCE,
  configSchema: GitConfig,
  predicates: GIT_PREDICATES,
  create: createGitConnector,
});
