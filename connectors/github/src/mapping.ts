import { canonicalJson, xxh64, type ClaimInput, type EpisodeInput } from '@canon/core';
import { definePredicates, key } from '@canon/connector-kit';

export const GITHUB_SOURCE = 'github';

export const GITHUB_PREDICATES = definePredicates({
  title: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
  state: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
  labels: { cardinality: 'many', mode: 'supersede', min_role: 'connector' },
  assignees: { cardinality: 'many', mode: 'supersede', min_role: 'connector' },
  milestone: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
  closed_at: { cardinality: 'one', mode: 'supersede', min_role: 'connector' },
  // Who opened an issue never changes: a different value is a disagreement to flag.
  author: { cardinality: 'one', mode: 'flag', min_role: 'connector' },
});

/** The fields of a REST issue (or pull request) this connector reads; everything else is ignored. */
export interface GithubIssue {
  number: number;
  title: string;
  state: string;
  html_url: string;
  updated_at: string;
  closed_at?: string | null;
  user?: { login: string } | null;
  labels?: Array<string | { name?: string | null }>;
  assignees?: Array<{ login: string }> | null;
  milestone?: { title: string } | null;
  pull_request?: unknown;
}

/** One issue as listed from one repository: the input of `toEpisodes`. */
export interface GithubIssueItem {
  owner: string;
  repo: string;
  issue: GithubIssue;
}

/** The mapped fields of an issue: the episode body holds these and nothing else of the payload. */
export interface IssueProjection {
  number: number;
  type: 'issue' | 'pull_request';
  title: string;
  state: string;
  labels: string[];
  assignees: string[];
  milestone: string | null;
  author: string | null;
  closed_at: string | null;
}

const iso = (instant: string): string => new Date(instant).toISOString();
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function projectIssue(issue: GithubIssue): IssueProjection {
  const labels = (issue.labels ?? [])
    .map((l) => (typeof l === 'string' ? l : (l.name ?? '')))
    .filter((name) => name !== '');
  return {
    number: issue.number,
    type: issue.pull_request ? 'pull_request' : 'issue',
    title: issue.title,
    state: issue.state,
    labels: [...new Set(labels)].sort(byCodeUnit),
    assignees: [...new Set((issue.assignees ?? []).map((a) => a.login))].sort(byCodeUnit),
    milestone: issue.milestone?.title ?? null,
    author: issue.user?.login ?? null,
    closed_at: issue.closed_at ? iso(issue.closed_at) : null,
  };
}

/** `github:owner/repo#number`; owner and repo lowercased, as GitHub treats them. */
export function issueSubject(owner: string, repo: string, number: number): string {
  return `github:${owner.toLowerCase()}/${repo.toLowerCase()}#${number}`;
}

/**
 * `github|owner|repo|issue|number|updated_at|xxh64(projection)`: the issue in one observed
 * state. `updated_at` separates real versions; the projection hash separates two states GitHub
 * stamped with the same second, and keeps fields we do not map out of the identity.
 */
export function issueKey(item: GithubIssueItem): string {
  const projection = projectIssue(item.issue);
  return key([
    'github',
    item.owner.toLowerCase(),
    item.repo.toLowerCase(),
    'issue',
    String(item.issue.number),
    iso(item.issue.updated_at),
    xxh64(canonicalJson(projection)),
  ]);
}

/** Maps one listed issue to its snapshot episode. Pure: no clock, no field outside the projection. */
export function issueToEpisodes(item: GithubIssueItem): EpisodeInput[] {
  const projection = projectIssue(item.issue);
  const updatedAt = iso(item.issue.updated_at);
  const at = { effective_from: updatedAt };
  // A key the snapshot no longer states ends there (design §4): a milestone removed or an issue
  // reopened needs no explicit retraction, so null fields give no claim.
  const claims: ClaimInput[] = [
    { predicate: 'title', value: projection.title, op: 'assert', ...at },
    { predicate: 'state', value: projection.state, op: 'assert', ...at },
    { predicate: 'labels', value: projection.labels, op: 'replace', ...at },
    { predicate: 'assignees', value: projection.assignees, op: 'replace', ...at },
  ];
  if (projection.milestone !== null) claims.push({ predicate: 'milestone', value: projection.milestone, op: 'assert', ...at });
  if (projection.author !== null) claims.push({ predicate: 'author', value: projection.author, op: 'assert', ...at });
  if (projection.closed_at !== null) claims.push({ predicate: 'closed_at', value: projection.closed_at, op: 'assert', ...at });
  const subject = issueSubject(item.owner, item.repo, item.issue.number);
  return [
    {
      source: GITHUB_SOURCE,
      idempotency_key: issueKey(item),
      subject,
      scope: 'workspace',
      kind: projection.type,
      body: { issue: { ...projection }, claims },
      occurred_at: updatedAt,
      lineage: subject,
      snapshot: true,
      source_ref: item.issue.html_url,
    },
  ];
}
