import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runConnector } from '@canon/connector-kit';
import { MemorySink } from '@canon/connector-kit/testing';
import { createGithubConnector } from './connector.js';
import { GithubApiError } from './errors.js';
import type { GithubIssue } from './mapping.js';
import { loadRecordings, startReplayServer, type ReplayServer } from './testing/replay-server.js';

const REPO = 'octokit-fixture-org/paginate-issues';
let server: ReplayServer;

beforeAll(async () => {
  server = await startReplayServer([...loadRecordings('paginate-issues.json'), ...loadRecordings('add-labels-to-issue.json')]);
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.intercept = undefined;
  server.mutate = undefined;
});

const connector = (config: Record<string, unknown> = {}) =>
  createGithubConnector({ repo: REPO, token: 'test-token', baseUrl: server.baseUrl, retries: 2, retryAfterBaseMs: 1, ...config }, {});
const fast = { retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 } };

/** The labels the add-labels-to-issue recording adds: Foo, bAr, baZ. */
const recordedLabels = loadRecordings('add-labels-to-issue.json')[1]?.response as Array<{ name: string }>;

/** Rewrites issue #1 in every listed page. */
function editIssueOne(edit: (issue: GithubIssue) => void): void {
  server.mutate = (body) => {
    for (const issue of body as GithubIssue[]) if (issue.number === 1) edit(issue);
    return body;
  };
}

describe('github connector', () => {
  it('follows all 5 pages and maps 13 issues into snapshot episodes', async () => {
    const sink = new MemorySink();
    const summary = await runConnector(connector(), sink);
    expect(summary).toMatchObject({ fetched: 13, created: 13, batches: 5, cursor: { since: '2017-10-10T16:00:00.000Z' } });
    expect(server.requests).toHaveLength(5);
    const first = new URL(server.requests[0]?.split(' ')[1] ?? '', server.baseUrl);
    expect(Object.fromEntries(first.searchParams)).toMatchObject({ state: 'all', sort: 'updated', direction: 'asc' });
    expect(server.requests.slice(1).map((r) => new URL(r.split(' ')[1] ?? '', server.baseUrl).searchParams.get('page'))).toEqual(['2', '3', '4', '5']);

    const issue13 = sink.episodes.find((e) => e.subject === 'github:octokit-fixture-org/paginate-issues#13');
    expect(issue13).toMatchObject({
      source: 'github',
      kind: 'issue',
      lineage: 'github:octokit-fixture-org/paginate-issues#13',
      snapshot: true,
      occurred_at: '2017-10-10T16:00:00.000Z',
      source_ref: 'https://github.com/octokit-fixture-org/paginate-issues/issues/13',
    });
    expect(issue13?.body).toEqual({
      issue: {
        number: 13,
        type: 'issue',
        title: 'Test issue 13',
        state: 'open',
        labels: [],
        assignees: [],
        milestone: null,
        author: 'octokit-fixture-user-a',
        closed_at: null,
      },
      claims: [
        { predicate: 'title', value: 'Test issue 13', op: 'assert', effective_from: '2017-10-10T16:00:00.000Z' },
        { predicate: 'state', value: 'open', op: 'assert', effective_from: '2017-10-10T16:00:00.000Z' },
        { predicate: 'labels', value: [], op: 'replace', effective_from: '2017-10-10T16:00:00.000Z' },
        { predicate: 'assignees', value: [], op: 'replace', effective_from: '2017-10-10T16:00:00.000Z' },
        { predicate: 'author', value: 'octokit-fixture-user-a', op: 'assert', effective_from: '2017-10-10T16:00:00.000Z' },
      ],
    });
  });

  it('creates nothing on a second sync of the same data, and sends the cursor as since', async () => {
    const sink = new MemorySink();
    await runConnector(connector(), sink);
    server.requests.length = 0;
    expect(await runConnector(connector(), sink)).toMatchObject({ fetched: 13, created: 0, duplicates: 13 });
    expect(server.requests[0]).toContain('since=2017-10-10T16%3A00%3A00.000Z');
  });

  it('turns labels added, then one removed, into new versions of the issue', async () => {
    const sink = new MemorySink();
    await runConnector(connector(), sink);

    // The recordings share one timestamp for every issue; the test sets later updated_at
    // values itself, as GitHub would on each edit.
    editIssueOne((issue) => {
      issue.labels = recordedLabels;
      issue.updated_at = '2017-10-11T09:00:00Z';
    });
    expect(await runConnector(connector(), sink)).toMatchObject({ created: 1, duplicates: 12 });
    const second = sink.episodes.at(-1);
    expect(second?.subject).toBe('github:octokit-fixture-org/paginate-issues#1');
    expect(second?.body.claims?.find((c) => c.predicate === 'labels')).toEqual({
      predicate: 'labels',
      value: ['Foo', 'bAr', 'baZ'],
      op: 'replace',
      effective_from: '2017-10-11T09:00:00.000Z',
    });
    expect(sink.cursor).toEqual({ since: '2017-10-11T09:00:00.000Z' });

    editIssueOne((issue) => {
      issue.labels = recordedLabels.filter((l) => l.name !== 'bAr');
      issue.updated_at = '2017-10-12T09:00:00Z';
    });
    expect(await runConnector(connector(), sink)).toMatchObject({ created: 1 });
    const third = sink.episodes.at(-1);
    expect(third?.lineage).toBe(second?.lineage);
    expect(third?.body.claims?.find((c) => c.predicate === 'labels')?.value).toEqual(['Foo', 'baZ']);
    expect(new Set(sink.episodes.filter((e) => e.lineage === second?.lineage).map((e) => e.idempotency_key)).size).toBe(3);
  });

  it('gives a clear error on a 422, without retrying it', async () => {
    const [recorded] = loadRecordings('errors.json');
    server.intercept = () => ({ status: recorded?.status ?? 422, body: recorded?.response });
    const error = await runConnector(connector(), new MemorySink(), fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GithubApiError);
    expect((error as GithubApiError).status).toBe(422);
    expect((error as Error).message).toBe(
      `GitHub rejected the request for ${REPO} (422 Validation Failed: Label.color invalid): check the connector's since and repo settings`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 5xx and then succeeds', async () => {
    let failures = 2;
    server.intercept = () => (failures-- > 0 ? { status: 502, body: { message: 'Server Error' } } : undefined);
    const summary = await runConnector(connector(), new MemorySink(), fast);
    expect(summary.created).toBe(13);
    expect(server.requests).toHaveLength(5 + 2);
  });

  it('reports a persistent 5xx clearly once the retries are spent', async () => {
    server.intercept = () => ({ status: 503, body: { message: 'Service Unavailable' } });
    const error = await runConnector(connector(), new MemorySink(), fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GithubApiError);
    expect((error as GithubApiError).transient).toBe(true);
    expect((error as Error).message).toBe(`GitHub failed with 503 for ${REPO} after retries: try again later`);
    expect(server.requests).toHaveLength(1 + 2);
  });

  it('says a host it cannot reach is unreachable, once, rather than a 500 after minutes of retries', async () => {
    // Nothing listens on a port just closed: octokit reports a refused connection as a 500, and
    // the runner retried it as GitHub failing — three minutes of silence, then "failed with 500".
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const baseUrl = `http://127.0.0.1:${port}`;
    const error = await runConnector(connector({ baseUrl }), new MemorySink()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GithubApiError);
    expect((error as Error).message).toBe(`could not reach GitHub at ${baseUrl} (ECONNREFUSED): check the connector's baseUrl and the network`);
    expect((error as GithubApiError).transient).toBe(false);
    expect(await connector({ baseUrl }).check()).toEqual({ ok: false, message: expect.stringMatching(/could not reach GitHub/) });
  });

  it('names what to fix on 401, 403 and 404', async () => {
    const messageFor = async (status: number) => {
      server.intercept = () => ({ status, body: { message: 'nope' } });
      return ((await runConnector(connector(), new MemorySink(), fast).catch((e: unknown) => e)) as Error).message;
    };
    expect(await messageFor(401)).toMatch(/set GITHUB_TOKEN/);
    expect(await messageFor(403)).toMatch(/needs read access/);
    expect(await messageFor(404)).toMatch(/repository octokit-fixture-org\/paginate-issues not found/);
    server.intercept = undefined;
    expect(await connector().check()).toEqual({ ok: false, message: expect.stringMatching(/not found \(404\)/) });
  });

  it('sends the token from GITHUB_TOKEN when the config has none', async () => {
    const seen = new Set<string | undefined>();
    server.intercept = (_url, _method, headers) => {
      seen.add(headers.authorization);
      return undefined;
    };
    const instance = createGithubConnector({ repo: REPO, baseUrl: server.baseUrl, retries: 0 }, { GITHUB_TOKEN: 'from-env' });
    await runConnector(instance, new MemorySink());
    expect([...seen]).toEqual(['token from-env']);
  });
});
