import { describe, expect, it } from 'vitest';
import { issueKey, issueToEpisodes, type GithubIssue, type GithubIssueItem } from './mapping.js';

const issue: GithubIssue & Record<string, unknown> = {
  number: 7,
  title: 'Billing retries twice',
  state: 'closed',
  html_url: 'https://github.com/acme/api/issues/7',
  updated_at: '2024-03-01T12:00:00Z',
  closed_at: '2024-03-01T12:00:00Z',
  user: { login: 'ada' },
  labels: [{ name: 'bug' }, 'billing'],
  assignees: [{ login: 'zoe' }, { login: 'bob' }],
  milestone: { title: 'v2' },
  // Fields outside the projection: they change often and mean nothing to memory.
  comments: 3,
  body: 'Long description',
  reactions: { total_count: 1 },
};
const item: GithubIssueItem = { owner: 'Acme', repo: 'API', issue };

describe('github key recipe', () => {
  it('gives the same key and episode for the same issue mapped twice', () => {
    expect(issueToEpisodes(item)).toEqual(issueToEpisodes({ ...item, issue: { ...issue } }));
  });

  it('changes with every identity part and every mapped field', () => {
    const variants: GithubIssueItem[] = [
      { ...item, owner: 'other' },
      { ...item, repo: 'other' },
      { ...item, issue: { ...issue, number: 8 } },
      { ...item, issue: { ...issue, updated_at: '2024-03-01T12:00:01Z' } },
      { ...item, issue: { ...issue, title: 'Billing retries once' } },
      { ...item, issue: { ...issue, state: 'open' } },
      { ...item, issue: { ...issue, labels: ['bug'] } },
      { ...item, issue: { ...issue, assignees: [] } },
      { ...item, issue: { ...issue, milestone: null } },
      { ...item, issue: { ...issue, closed_at: null } },
      { ...item, issue: { ...issue, user: { login: 'eve' } } },
      { ...item, issue: { ...issue, pull_request: {} } },
    ];
    const keys = new Set(variants.map(issueKey));
    expect(keys.size).toBe(variants.length);
    expect(keys.has(issueKey(item))).toBe(false);
  });

  it('ignores fields outside the projection, label order and owner/repo case', () => {
    const noisy = { ...issue, comments: 99, body: 'edited', reactions: { total_count: 5 } };
    expect(issueToEpisodes({ ...item, issue: noisy })).toEqual(issueToEpisodes(item));
    expect(issueKey({ ...item, issue: { ...issue, labels: ['billing', { name: 'bug' }] } })).toBe(issueKey(item));
    expect(issueKey({ ...item, owner: 'acme', repo: 'api' })).toBe(issueKey(item));
  });

  it('does not depend on the clock', async () => {
    const before = issueToEpisodes(item);
    await new Promise((r) => setTimeout(r, 5));
    expect(issueToEpisodes(item)).toEqual(before);
  });

  it('maps the projection into claims, null fields stating nothing', () => {
    const [episode] = issueToEpisodes({ ...item, issue: { ...issue, milestone: null, closed_at: null } });
    expect(episode?.subject).toBe('github:acme/api#7');
    expect(episode?.body.claims?.map((c) => [c.predicate, c.op, c.value])).toEqual([
      ['title', 'assert', 'Billing retries twice'],
      ['state', 'assert', 'closed'],
      ['labels', 'replace', ['billing', 'bug']],
      ['assignees', 'replace', ['bob', 'zoe']],
      ['author', 'assert', 'ada'],
    ]);
  });
});
