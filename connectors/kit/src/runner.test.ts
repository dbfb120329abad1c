import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EpisodeInput } from '@canon/core';
import type { Connector, JsonValue, SyncBatch, SyncOptions } from './contract.js';
import { definePredicates } from './predicates.js';
import { ConnectorAbortedError, ConnectorError, KeyConflictError } from './errors.js';
import { runConnector, type RunProgress } from './runner.js';
import { MemorySink } from './testing.js';

const episode = (n: number, text = `item ${n}`): EpisodeInput => ({
  source: 'fake',
  idempotency_key: `k${n}`,
  subject: 'fake:thing',
  scope: 'workspace',
  kind: 'message',
  body: { text },
  snapshot: false,
});

/** A connector over fixed pages; the cursor is the number of pages read. */
function fakeConnector(pages: EpisodeInput[][], hooks: { beforePage?: (page: number) => void } = {}): Connector {
  return {
    id: 'fake',
    configSchema: z.object({}),
    config: {},
    predicates: definePredicates({}),
    check: async () => ({ ok: true, message: 'ok' }),
    toEpisodes: () => [],
    async *sync({ cursor, signal }: SyncOptions): AsyncGenerator<SyncBatch> {
      for (let page = typeof cursor === 'number' ? cursor : 0; page < pages.length; page++) {
        signal.throwIfAborted();
        hooks.beforePage?.(page);
        yield { episodes: pages[page] ?? [], cursor: page + 1, fetched: pages[page]?.length ?? 0, total: pages.flat().length };
      }
    },
  };
}

const fast = { retries: 3, minDelayMs: 1, maxDelayMs: 2 };

describe('runConnector', () => {
  it('pages through sync, saving each cursor with its batch, and reports progress', async () => {
    const sink = new MemorySink();
    const progress: RunProgress[] = [];
    const summary = await runConnector(fakeConnector([[episode(1), episode(2)], [episode(3)]]), sink, {
      onProgress: (p) => progress.push(p),
    });
    expect(summary).toMatchObject({ fetched: 3, created: 3, duplicates: 0, batches: 2, cursor: 2 });
    expect(sink.cursor).toBe(2);
    expect(progress.map((p) => [p.phase, p.created, p.total])).toEqual([
      ['syncing', 2, 3],
      ['syncing', 3, 3],
      ['done', 3, 3],
    ]);
  });

  it('resumes from the stored cursor, and a re-read from the start gives duplicates only', async () => {
    const pages = [[episode(1)], [episode(2)]];
    const sink = new MemorySink();
    await runConnector(fakeConnector(pages), sink);
    expect((await runConnector(fakeConnector(pages), sink)).fetched).toBe(0);
    sink.cursor = null;
    expect(await runConnector(fakeConnector(pages), sink)).toMatchObject({ created: 0, duplicates: 2 });
  });

  it('drops a key conflict, records it, and commits the rest of the batch', async () => {
    const sink = new MemorySink();
    await sink.commit([episode(2, 'first version')], 0);
    const summary = await runConnector(fakeConnector([[episode(1), episode(2, 'changed'), episode(3)]]), sink);
    expect(summary.created).toBe(2);
    expect(summary.key_conflicts).toEqual([{ idempotency_key: 'k2', stored_episode_id: 'ep_1' }]);
    expect(sink.episodes.map((e) => e.idempotency_key)).toEqual(['k2', 'k1', 'k3']);
    expect(sink.cursor).toBe(1);
  });

  it('counts erased keys and does not resurrect them', async () => {
    const sink = new MemorySink();
    sink.erase('fake', 'k1');
    const summary = await runConnector(fakeConnector([[episode(1), episode(2)]]), sink);
    expect(summary).toMatchObject({ created: 1, erased: 1 });
  });

  it('retries a transient failure from the last committed cursor', async () => {
    let failuresLeft = 2;
    const connector = fakeConnector([[episode(1)], [episode(2)]], {
      beforePage: (page) => {
        if (page === 1 && failuresLeft-- > 0) throw Object.assign(new Error('bad gateway'), { status: 502 });
      },
    });
    const sink = new MemorySink();
    const summary = await runConnector(connector, sink, { retry: fast });
    expect(summary).toMatchObject({ created: 2, duplicates: 0, retries: 2 });
  });

  it('gives up after the configured retries and never retries a permanent error', async () => {
    const always = fakeConnector([[episode(1)]], {
      beforePage: () => {
        throw Object.assign(new Error('unavailable'), { status: 503 });
      },
    });
    await expect(runConnector(always, new MemorySink(), { retry: fast })).rejects.toThrow('unavailable');
    let calls = 0;
    const permanent = fakeConnector([[episode(1)]], {
      beforePage: () => {
        calls += 1;
        throw new ConnectorError('bad_token', 'token refused');
      },
    });
    await expect(runConnector(permanent, new MemorySink(), { retry: fast })).rejects.toThrow('token refused');
    expect(calls).toBe(1);
  });

  it('stops on abort with the summary of what was committed', async () => {
    const controller = new AbortController();
    const connector = fakeConnector([[episode(1)], [episode(2)]], {
      beforePage: (page) => {
        if (page === 1) controller.abort();
      },
    });
    const sink = new MemorySink();
    const error = await runConnector(connector, sink, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorAbortedError);
    expect((error as ConnectorAbortedError).summary).toMatchObject({ created: 1, cursor: 1 });
    expect(sink.cursor).toBe(1);
  });

  it('writes nothing in a dry run', async () => {
    const sink = new MemorySink();
    const summary = await runConnector(fakeConnector([[episode(1), episode(2)]]), sink, { dryRun: true });
    expect(summary).toMatchObject({ dry_run: true, submitted: 2, created: 0 });
    expect(sink.commits).toBe(0);
  });

  it('splits a large batch, keeping the previous cursor on all parts but the last', async () => {
    const seen: Array<JsonValue> = [];
    const sink = new MemorySink();
    const commit = sink.commit.bind(sink);
    sink.commit = async (episodes, cursor) => {
      seen.push(cursor);
      return commit(episodes, cursor);
    };
    const page = Array.from({ length: 5 }, (_, i) => episode(i));
    await runConnector(fakeConnector([page]), sink, { maxCommitSize: 2 });
    expect(seen).toEqual([null, null, 1]);
    expect(sink.episodes).toHaveLength(5);
  });

  it('refuses an invalid episode with the connector and key named', async () => {
    const bad = { ...episode(1), subject: '' };
    await expect(runConnector(fakeConnector([[bad]]), new MemorySink())).rejects.toThrow(/fake produced an invalid episode .*k1/);
  });
});

describe('MemorySink', () => {
  it('follows the ingest rules: duplicate, conflict stores nothing', async () => {
    const sink = new MemorySink();
    expect(await sink.commit([episode(1)], 'a')).toEqual([{ index: 0, status: 'created', episode_id: 'ep_1' }]);
    expect(await sink.commit([episode(1)], 'b')).toEqual([{ index: 0, status: 'duplicate', episode_id: 'ep_1' }]);
    await expect(sink.commit([episode(2), episode(1, 'other')], 'c')).rejects.toBeInstanceOf(KeyConflictError);
    expect(sink.episodes).toHaveLength(1);
    expect(sink.cursor).toBe('b');
  });
});
