import { describe, expect, it } from 'vitest';
import { claimBody, compiledFrom, inWorkspace, logEpisodes, useStoreDatabase } from '@canon/testing';
import type { Pool } from '../db.js';
import { insertMemories } from '../memories/insert-memories.js';
import { writeProjections } from '../projections/write-projections.js';
import { searchDocumentTexts } from './search-document-texts.js';
import { searchMemoryValues } from './search-memory-values.js';

// Search runs through SECURITY DEFINER functions that answer only inside the workspace's
// transaction: every call here goes through one.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

describe('searchMemoryValues', () => {
  it('finds memory values by their words, the viewer\'s personal ones included, and no other workspace\'s', async () => {
    const episodes = [
      ...(await logEpisodes(pool, 'w-values', [
        { idempotency_key: 'day', subject: 's', body: claimBody('deploy_window', 'tuesday afternoon') },
        { idempotency_key: 'other', subject: 't', body: claimBody('owner', 'ann') },
      ])),
      ...(await logEpisodes(pool, 'w-values', [{ idempotency_key: 'mine', subject: 's', scope: 'personal', body: claimBody('reminder', 'tuesday standup') }], { role: 'member', user: 'ann' })),
    ];
    const { memories } = compiledFrom(episodes);
    await insertMemories(pool, 'w-values', memories);
    await writeProjections(pool, 'w-values', memories.map((write) => ({ write, before: null })));
    const query = { workspaceId: 'w-values', q: 'tuesday', subject: null, limit: 10, includeHistory: false, user: null, at: new Date().toISOString() };
    const hits = await inWorkspace(pool, 'w-values', (tx) => searchMemoryValues(tx, query));
    const day = memories.find((m) => m.timeline.fact_key.predicate === 'deploy_window')!;
    expect(hits).toEqual([expect.objectContaining({ memory_id: day.timeline.memory_id, ord: 0, subject: 's', scope: 'workspace', status: 'in_force', text_match: true })]);
    const ann = await inWorkspace(pool, 'w-values', (tx) => searchMemoryValues(tx, { ...query, user: 'ann' }), 'ann');
    expect(ann.map((h) => h.scope).sort()).toEqual(['personal', 'workspace']);
    expect(await inWorkspace(pool, 'w-values', (tx) => searchMemoryValues(tx, { ...query, subject: 't' }))).toEqual([]);
    expect(await inWorkspace(pool, 'w-elsewhere', (tx) => searchMemoryValues(tx, query))).toEqual([]);
  });
});

describe('searchDocumentTexts', () => {
  it('finds a document\'s words in the lineage\'s version in force only', async () => {
    await logEpisodes(pool, 'w-docs', [
      { idempotency_key: 'v1', subject: 'repo', kind: 'document', lineage: 'README.md', snapshot: true, occurred_at: '2026-01-01T00:00:00.000Z', body: { text: 'alpha bravo' } },
      { idempotency_key: 'v2', subject: 'repo', kind: 'document', lineage: 'README.md', snapshot: true, occurred_at: '2026-02-01T00:00:00.000Z', body: { text: 'charlie bravo' } },
      { idempotency_key: 'msg', subject: 'repo', body: { text: 'charlie' } },
    ]);
    const search = (q: string) => inWorkspace(pool, 'w-docs', (tx) => searchDocumentTexts(tx, { workspaceId: 'w-docs', q, subject: null, limit: 10, user: null }));
    expect(await search('alpha')).toEqual([]);
    const [hit, ...rest] = await search('charlie');
    expect(rest).toEqual([]);
    expect(hit).toEqual(expect.objectContaining({ subject: 'repo', source: 'api', occurred_at: '2026-02-01T00:00:00.000Z', snippet: expect.stringContaining('«charlie»') }));
  });
});
