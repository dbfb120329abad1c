import { describe, expect, it, vi } from 'vitest';
import { envelopeOf } from '@canon/core';
import { logEpisodes, newEpisode, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { ensureWorkspace } from '../workspaces/ensure-workspace.js';
import { appendEpisodes } from './append-episodes.js';
import { episodeIdsOfSubject } from './episode-ids-of-subject.js';
import { episodeSources } from './episode-sources.js';
import { episodesByIds } from './episodes-by-ids.js';
import { episodesOfSubject } from './episodes-of-subject.js';
import { findEpisodesByKeys } from './find-episodes-by-keys.js';
import { linkEpisodesOfSubject } from './link-episodes-of-subject.js';
import { listEpisodes, type ListEpisodesResult } from './list-episodes.js';
import { keyOf } from './rows.js';

// The log's operations, each on its own workspace of one database.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

describe('appendEpisodes', () => {
  it('inserts a batch once, and answers a repeat with the rows already stored', async () => {
    await ensureWorkspace(pool, 'w-append');
    const batch = [
      newEpisode('w-append', { idempotency_key: 'b', subject: 's' }),
      newEpisode('w-append', { idempotency_key: 'a', subject: 's', occurred_at: '2026-01-02T03:04:05.678Z' }),
    ];
    const first = await appendEpisodes(pool, 'w-append', batch);
    expect([...first.inserted].sort()).toEqual([keyOf('api', 'a'), keyOf('api', 'b')]);
    expect(first.existing).toEqual([]);

    const again = batch.map((e) => newEpisode('w-append', { idempotency_key: e.envelope.idempotency_key, subject: 's' }));
    const second = await appendEpisodes(pool, 'w-append', again);
    expect(second.inserted.size).toBe(0);
    expect(second.existing.map((e) => e.id).sort()).toEqual(batch.map((e) => e.id).sort());
    const stored = await episodesOfSubject(pool, 'w-append', 's');
    expect(stored).toHaveLength(2);
    // A time the source gave is kept; one it did not give is the ingest time, and says so.
    const a = stored.find((e) => e.idempotency_key === 'a')!;
    const b = stored.find((e) => e.idempotency_key === 'b')!;
    expect([a.occurred_at, a.occurred_at_defaulted]).toEqual(['2026-01-02T03:04:05.678Z', false]);
    expect([b.occurred_at, b.occurred_at_defaulted]).toEqual([b.ingested_at, true]);
  });

  it('stores every column as given, whether a batch holds one value in it throughout or several', async () => {
    await ensureWorkspace(pool, 'w-append-columns');
    const ann = { role: 'member' as const, user: 'ann' };
    const mixed = [
      { ...newEpisode('w-append-columns', { idempotency_key: 'm1', subject: 's', source: 'api' }), actor_key: 'k1' },
      newEpisode('w-append-columns', { idempotency_key: 'm2', subject: 't', source: 'other', kind: 'document', scope: 'personal', body: { text: 'x' } }, ann),
      newEpisode(
        'w-append-columns',
        { idempotency_key: 'm3', subject: 's', occurred_at: '2026-01-02T03:04:05.678Z', observed_at: '2026-01-03T00:00:00.000Z', sequence: 7, snapshot: true, lineage: 'l1', source_ref: 'ref-1' },
        ann,
      ),
      { ...newEpisode('w-append-columns', { idempotency_key: 'm4', subject: 's', sequence: 0 }), occurred_at_default: '2025-12-31T00:00:00.000Z' },
    ];
    // One value in every column but the keys, ids and bodies: none of them null.
    const uniform = ['u1', 'u2'].map((k) => ({
      ...newEpisode(
        'w-append-columns',
        { idempotency_key: k, subject: 'u', source: 'uni', kind: 'note', scope: 'personal', occurred_at: '2026-02-01T00:00:00.000Z', observed_at: '2026-02-02T00:00:00.000Z', sequence: 3, snapshot: true, source_ref: 'ref-u', body: { k } },
        ann,
      ),
      actor_key: 'k2',
      occurred_at_default: '2020-01-01T00:00:00.000Z',
    }));
    for (const batch of [mixed, uniform]) {
      const result = await appendEpisodes(pool, 'w-append-columns', batch, { pending: true });
      expect(result.inserted.size).toBe(batch.length);
      const stored = new Map((await episodesByIds(pool, 'w-append-columns', batch.map((e) => e.id))).map((e) => [e.id, e]));
      for (const e of batch) {
        const row = stored.get(e.id)!;
        expect(envelopeOf(row)).toEqual(e.envelope);
        expect([row.content_hash, row.actor_key ?? null]).toEqual([e.content_hash, e.actor_key]);
        if (e.envelope.occurred_at === null) {
          expect(row.occurred_at_defaulted).toBe(true);
          if (e.occurred_at_default) expect(row.occurred_at).toBe(e.occurred_at_default);
        }
      }
    }
  });

  it('marks pending, in the same statement, only the rows it inserted, each with its scope and owner', async () => {
    await ensureWorkspace(pool, 'w-append-pending');
    const first = [newEpisode('w-append-pending', { idempotency_key: 'a', subject: 's' })];
    await appendEpisodes(pool, 'w-append-pending', first);
    const batch = [
      newEpisode('w-append-pending', { idempotency_key: 'a', subject: 's' }),
      newEpisode('w-append-pending', { idempotency_key: 'b', subject: 't', scope: 'personal' }, { role: 'member', user: 'ann' }),
    ];
    const result = await appendEpisodes(pool, 'w-append-pending', batch, { pending: true });
    expect([...result.inserted]).toEqual([keyOf('api', 'b')]);
    expect(result.existing.map((e) => e.id)).toEqual([first[0]!.id]);
    const { rows } = await pool.query(`SELECT subject, episode_id, scope, owner FROM pending WHERE workspace_id = 'w-append-pending'`);
    expect(rows).toEqual([{ subject: 't', episode_id: batch[1]!.id, scope: 'personal', owner: 'ann' }]);
  });
});

describe('findEpisodesByKeys', () => {
  it('returns the stored episode of each known key and nothing for an unknown one', async () => {
    const [e] = await logEpisodes(pool, 'w-find', [{ idempotency_key: 'k1', subject: 's', source: 'git' }]);
    const found = await findEpisodesByKeys(pool, 'w-find', [
      { source: 'git', idempotency_key: 'k1' },
      { source: 'api', idempotency_key: 'k1' },
      { source: 'git', idempotency_key: 'missing' },
    ]);
    expect(found).toEqual([e]);
  });
});

describe('listEpisodes', () => {
  it('pages the log in commit order with a cursor, and ends with no next page', async () => {
    await logEpisodes(pool, 'w-list', [{ idempotency_key: '1', subject: 'x' }]);
    await logEpisodes(pool, 'w-list', [{ idempotency_key: '2', subject: 'y' }]);
    await logEpisodes(pool, 'w-list', [{ idempotency_key: '3', subject: 'x' }]);
    const first = await listEpisodes(pool, { workspaceId: 'w-list', limit: 2, settled: false });
    if (!first.ok) throw new Error('a page');
    expect(first.episodes.map((e) => e.idempotency_key)).toEqual(['1', '2']);
    expect(first.next).toBe(first.episodes[1]!.log_position);
    const second = await listEpisodes(pool, { workspaceId: 'w-list', limit: 2, after: first.next!, settled: false });
    expect(second).toEqual({ ok: true, episodes: [expect.objectContaining({ idempotency_key: '3' })], next: null });
    const ofX = await listEpisodes(pool, { workspaceId: 'w-list', subject: 'x', limit: 10, settled: false });
    expect(ofX.ok && ofX.episodes.map((e) => e.idempotency_key)).toEqual(['1', '3']);
  });

  it('orders by the transaction id as a number, not as the text the rows spell it in', async () => {
    // Transaction ids that cross a power of ten (999, then 1000) sort apart as text.
    // The log is append-only: the rows are copies of one logged elsewhere, written with those ids.
    await logEpisodes(pool, 'w-digits-from', [{ idempotency_key: 'a', subject: 'x' }]);
    await ensureWorkspace(pool, 'w-digits');
    for (const [key, tx] of [['b', '1000'], ['a', '999']] as const) {
      await pool.query(
        `INSERT INTO episodes (workspace_id, id, source, idempotency_key, subject, scope, owner, kind, body, occurred_at, occurred_at_defaulted, observed_at,
                               sequence, lineage, snapshot, actor_role, actor_user, actor_key, source_ref, content_hash, tx_id)
         SELECT 'w-digits', gen_random_uuid(), source, $1, subject, scope, owner, kind, body, occurred_at, occurred_at_defaulted, observed_at,
                sequence, lineage, snapshot, actor_role, actor_user, actor_key, source_ref, content_hash, $2::text::xid8
           FROM episodes WHERE workspace_id = 'w-digits-from'`,
        [key, tx],
      );
    }
    const keysOf = (r: ListEpisodesResult) => (r.ok ? r.episodes.map((e) => e.idempotency_key) : null);
    expect(keysOf(await listEpisodes(pool, { workspaceId: 'w-digits', limit: 10, settled: false }))).toEqual(['a', 'b']);
    const first = await listEpisodes(pool, { workspaceId: 'w-digits', limit: 1, settled: false });
    expect(keysOf(first)).toEqual(['a']);
    expect(keysOf(await listEpisodes(pool, { workspaceId: 'w-digits', limit: 1, after: first.ok ? first.next! : '', settled: false }))).toEqual(['b']);
    expect(keysOf(await listEpisodes(pool, { workspaceId: 'w-digits', subject: 'x', limit: 10, settled: false }))).toEqual(['a', 'b']);
    expect((await episodesOfSubject(pool, 'w-digits', 'x')).map((e) => e.idempotency_key)).toEqual(['a', 'b']);
  });

  it('answers a cursor past the end with an empty page, and an unparseable one as bad', async () => {
    expect(await listEpisodes(pool, { workspaceId: 'w-list', limit: 10, after: '18446744073709551615.1', settled: false })).toEqual({ ok: true, episodes: [], next: null });
    expect(await listEpisodes(pool, { workspaceId: 'w-list', limit: 10, after: '18446744073709551616.1' })).toEqual({ ok: false, reason: 'bad_cursor' });
    expect(await listEpisodes(pool, { workspaceId: 'w-list', limit: 10, after: 'nope' })).toEqual({ ok: false, reason: 'bad_cursor' });
  });

  it('returns committed rows once no older transaction is in flight (settled, the default)', async () => {
    // Other databases' transactions on the same server hold the horizon back for a moment.
    await vi.waitFor(async () => {
      const page = await listEpisodes(pool, { workspaceId: 'w-list', limit: 10 });
      expect(page.ok && page.episodes.map((e) => e.idempotency_key)).toEqual(['1', '2', '3']);
    }, { timeout: 20_000, interval: 100 });
  });
});

describe('episodesByIds', () => {
  it('reads episodes by id in log order, leaving out ids it does not know', async () => {
    const [a, b] = await logEpisodes(pool, 'w-ids', [
      { idempotency_key: 'a', subject: 's' },
      { idempotency_key: 'b', subject: 't' },
    ]);
    expect(await episodesByIds(pool, 'w-ids', [b!.id, '00000000-0000-4000-8000-000000000000', a!.id])).toEqual([a, b]);
    expect(await episodesByIds(pool, 'w-other', [a!.id])).toEqual([]);
    expect(await episodesByIds(pool, 'w-ids', [])).toEqual([]);
  });
});

describe('episodesOfSubject', () => {
  it('reads every episode of one subject, in log order', async () => {
    const [a, , c] = await logEpisodes(pool, 'w-subject', [
      { idempotency_key: 'a', subject: 's' },
      { idempotency_key: 'b', subject: 't' },
      { idempotency_key: 'c', subject: 's' },
    ]);
    expect(await episodesOfSubject(pool, 'w-subject', 's')).toEqual([a, c]);
    expect(await episodesOfSubject(pool, 'w-subject', 'none')).toEqual([]);
  });
});

describe('episodeIdsOfSubject', () => {
  it('lists the ids of one subject', async () => {
    const [a, , c] = await logEpisodes(pool, 'w-subject-ids', [
      { idempotency_key: 'a', subject: 's' },
      { idempotency_key: 'b', subject: 't' },
      { idempotency_key: 'c', subject: 's' },
    ]);
    expect((await episodeIdsOfSubject(pool, 'w-subject-ids', 's')).sort()).toEqual([a!.id, c!.id].sort());
  });
});

describe('linkEpisodesOfSubject', () => {
  it('reads only the link episodes of a subject', async () => {
    const [, link] = await logEpisodes(pool, 'w-links', [
      { idempotency_key: 'note', subject: 's', body: { text: 'hello' } },
      { idempotency_key: 'link', subject: 's', kind: 'link', body: { same: true } },
      { idempotency_key: 'elsewhere', subject: 't', kind: 'link', body: { same: true } },
    ]);
    expect(await linkEpisodesOfSubject(pool, 'w-links', 's')).toEqual([link]);
  });
});

describe('episodeSources', () => {
  it('counts a subject\'s episodes per source, leaving out another user\'s personal ones', async () => {
    await logEpisodes(pool, 'w-sources', [
      { idempotency_key: '1', subject: 's', source: 'git', occurred_at: '2026-01-01T00:00:00.000Z' },
      { idempotency_key: '2', subject: 's', source: 'git', occurred_at: '2026-03-01T00:00:00.000Z' },
      { idempotency_key: '3', subject: 's', occurred_at: '2026-02-01T00:00:00.000Z' },
    ]);
    await logEpisodes(pool, 'w-sources', [{ idempotency_key: 'mine', subject: 's', source: 'mcp', scope: 'personal' }], { role: 'member', user: 'ann' });
    const git = { source: 'git', episodes: 2, first_at: '2026-01-01T00:00:00.000Z', last_at: '2026-03-01T00:00:00.000Z' };
    const api = { source: 'api', episodes: 1, first_at: '2026-02-01T00:00:00.000Z', last_at: '2026-02-01T00:00:00.000Z' };
    expect(await episodeSources(pool, 'w-sources', 's', 'bob')).toEqual([api, git]);
    expect((await episodeSources(pool, 'w-sources', 's', 'ann')).map((s) => s.source)).toEqual(['api', 'git', 'mcp']);
  });
});
