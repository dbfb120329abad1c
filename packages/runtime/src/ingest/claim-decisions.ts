import { NotFoundError } from '@canon/core';
import { decisionsOfEpisodes, type Sql } from '@canon/store';
import type { ClaimDecision, IngestItemResult } from './ingest.js';
import type { Principal } from '../auth/principal.js';
import { memoryDetail, type MemorySummary } from '../recall/recall.js';

/**
 * Each stored item's claim decisions, read after the compile an ingest waited for: a retried
 * episode (`duplicate`) answers with what its first ingest decided.
 */
export async function withClaimDecisions(sql: Sql, principal: Principal, items: IngestItemResult[]): Promise<IngestItemResult[]> {
  const ids = items.flatMap((i) => (i.episode_id !== null && (i.status === 'created' || i.status === 'duplicate') ? [i.episode_id] : []));
  const rows = await decisionsOfEpisodes(sql, principal.workspace_id, ids);
  const now = new Date().toISOString();
  const memories = new Map<string, MemorySummary | null>();
  for (const id of new Set(rows.map((r) => r.memory_id))) {
    try {
      memories.set(id, (await memoryDetail(sql, principal, id, now)).view);
    } catch (err) {
      // Another user's personal memory is none of this key's business.
      if (!(err instanceof NotFoundError)) throw err;
      memories.set(id, null);
    }
  }
  const byEpisode = new Map<string, ClaimDecision[]>();
  for (const r of rows) {
    const memory = memories.get(r.memory_id);
    if (!memory) continue;
    const list = byEpisode.get(r.episode_id) ?? [];
    list.push({ claim: r.index, memory_id: r.memory_id, kind: r.kind, reason: r.reason, target: r.target, memory });
    byEpisode.set(r.episode_id, list);
  }
  return items.map((i) => (i.episode_id !== null && (i.status === 'created' || i.status === 'duplicate') ? { ...i, decisions: byEpisode.get(i.episode_id) ?? [] } : i));
}
