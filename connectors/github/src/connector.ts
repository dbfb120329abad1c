import { Octokit } from '@octokit/rest';
import { throttling } from '@octokit/plugin-throttling';
import { retry } from '@octokit/plugin-retry';
import { z } from 'zod';
import type { EpisodeInput } from '@canon/core';
import {
  ConnectorError,
  parseConfig,
  type Connector,
  type ConnectorDefinition,
  type SyncBatch,
  type SyncOptions,
} from '@canon/connector-kit';
import { GITHUB_PREDICATES, GITHUB_SOURCE, issueToEpisodes, type GithubIssue, type GithubIssueItem } from './mapping.js';
import { toGithubError } from './errors.js';

export const GithubConfig = z.strictObject({
  /** `owner/name`. */
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/name'),
  /** Default: the GITHUB_TOKEN environment variable; without either, only public repositories. */
  token: z.string().min(1).optional(),
  /** The REST API root (GitHub Enterprise: https://host/api/v3). */
  baseUrl: z.url().default('https://api.github.com'),
  perPage: z.number().int().min(1).max(100).default(100),
  /** Retries of one request on 5xx and rate limits (octokit's retry and throttling plugins). */
  retries: z.number().int().min(0).max(10).default(3),
  /** Unit of the retry waits: octokit waits (n+1)² of these after the n-th failure. */
  retryAfterBaseMs: z.number().int().min(0).max(60_000).default(1_000),
});
export type GithubConfig = z.output<typeof GithubConfig>;

/** The cursor: the latest `updated_at` synced (GitHub's `since` is inclusive: the edge is re-read as duplicates). */
export const GithubCursor = z.object({ since: z.iso.datetime({ offset: true }) });
export type GithubCursor = z.infer<typeof GithubCursor>;

const ThrottledOctokit = Octokit.plugin(throttling, retry);

export function createGithubConnector(rawConfig: unknown, env: Readonly<Record<string, string | undefined>> = process.env): Connector<GithubConfig, GithubIssueItem> {
  const config = parseConfig(GITHUB_SOURCE, GithubConfig, rawConfig);
  const [owner = '', repo = ''] = config.repo.split('/');
  const token = config.token ?? env['GITHUB_TOKEN'];
  const retryWhile = (_after: number, _options: unknown, _octokit: unknown, retryCount: number) => retryCount < config.retries;
  const octokit = new ThrottledOctokit({
    ...(token ? { auth: token } : {}),
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    userAgent: 'canon-connector-github',
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    throttle: { onRateLimit: retryWhile, onSecondaryRateLimit: retryWhile, retryAfterBaseValue: config.retryAfterBaseMs },
    retry: { retries: config.retries, retryAfterBaseValue: config.retryAfterBaseMs },
  });

  async function check(signal?: AbortSignal) {
    try {
      await octokit.rest.repos.get({ owner, repo, request: { signal } });
      return { ok: true, message: `GitHub repository ${config.repo}${token ? '' : ' (no token: public data only)'}` };
    } catch (error) {
      const translated = toGithubError(error, config.repo, config.baseUrl);
      return { ok: false, message: translated instanceof Error ? translated.message : String(translated) };
    }
  }

  async function* sync({ cursor, since, signal }: SyncOptions): AsyncGenerator<SyncBatch> {
    let from: string | undefined = since === undefined ? undefined : new Date(since).toISOString();
    if (cursor !== null) {
      const parsed = GithubCursor.safeParse(cursor);
      if (!parsed.success) throw new ConnectorError('invalid_cursor', 'the stored github cursor is not {since}; reset the connector cursor');
      const stored = new Date(parsed.data.since).toISOString();
      if (from === undefined || stored > from) from = stored;
    }
    let latest = from;
    const pages = octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
      owner,
      repo,
      state: 'all',
      sort: 'updated',
      direction: 'asc',
      per_page: config.perPage,
      ...(from ? { since: from } : {}),
      request: { signal },
    });
    try {
      for await (const page of pages) {
        const issues = page.data as unknown as GithubIssue[];
        const episodes: EpisodeInput[] = [];
        for (const issue of issues) {
          episodes.push(...issueToEpisodes({ owner, repo, issue }));
          const updated = new Date(issue.updated_at).toISOString();
          if (latest === undefined || updated > latest) latest = updated;
        }
        yield { episodes, cursor: latest === undefined ? null : { since: latest }, fetched: issues.length, total: null };
      }
    } catch (error) {
      throw toGithubError(error, config.repo, config.baseUrl);
    }
  }

  return Object.freeze({
    id: GITHUB_SOURCE,
    configSchema: GithubConfig,
    config,
    predicates: GITHUB_PREDICATES,
    check,
    sync,
    toEpisodes: issueToEpisodes,
  });
}

export const githubConnector: ConnectorDefinition<GithubConfig, GithubIssueItem> = Object.freeze({
  id: GITHUB_SOURCE,
  configSchema: GithubConfig,
  predicates: GITHUB_PREDICATES,
  create: (config: unknown) => createGithubConnector(config),
});
