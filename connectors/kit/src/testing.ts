/**
 * Test helpers for connectors. Exported as `@canon/connector-kit/testing`, never from the
 * runtime entry.
 */
import { canonicalJson, EpisodeInput } from '@canon/core';
import type { JsonValue } from './contract.js';
import type { CommitItemResult, ConnectorSink } from './sink.js';
import { KeyConflictError } from './errors.js';

interface StoredEpisode {
  id: string;
  episode: EpisodeInput;
  canonical: string;
}

/**
 * An in-memory sink following the ingest rules of design §2 per (source, key): the same
 * envelope again is a `duplicate`; a different one throws KeyConflictError and stores nothing;
 * an erased key answers `erased`. A batch and its cursor are stored together or not at all.
 */
export class MemorySink implements ConnectorSink {
  readonly episodes: Array<{ id: string } & EpisodeInput> = [];
  cursor: JsonValue | null;
  commits = 0;
  private readonly byKey = new Map<string, StoredEpisode>();
  private readonly erasedKeys = new Set<string>();

  constructor(cursor: JsonValue | null = null) {
    this.cursor = cursor;
  }

  async loadCursor(): Promise<JsonValue | null> {
    return this.cursor;
  }

  async commit(episodes: EpisodeInput[], cursor: JsonValue): Promise<CommitItemResult[]> {
    const results: CommitItemResult[] = [];
    const staged = new Map<string, StoredEpisode>();
    episodes.forEach((input, index) => {
      // The envelope as the store compares it: parsed (defaults applied), canonical JSON.
      const episode = EpisodeInput.parse(input);
      const k = slot(episode.source, episode.idempotency_key);
      if (this.erasedKeys.has(k)) {
        results.push({ index, status: 'erased', episode_id: null });
        return;
      }
      const canonical = canonicalJson(episode);
      const stored = this.byKey.get(k) ?? staged.get(k);
      if (stored) {
        if (stored.canonical !== canonical) throw new KeyConflictError(index, episode.idempotency_key, stored.id);
        results.push({ index, status: 'duplicate', episode_id: stored.id });
        return;
      }
      const id = `ep_${this.byKey.size + staged.size + 1}`;
      staged.set(k, { id, episode, canonical });
      results.push({ index, status: 'created', episode_id: id });
    });
    for (const [k, stored] of staged) {
      this.byKey.set(k, stored);
      this.episodes.push({ id: stored.id, ...stored.episode });
    }
    this.cursor = cursor;
    this.commits += 1;
    return results;
  }

  /** Forgets a key's episode and answers `erased` for it from now on (design §8). */
  erase(source: string, idempotencyKey: string): void {
    const k = slot(source, idempotencyKey);
    this.byKey.delete(k);
    this.erasedKeys.add(k);
  }
}

function slot(source: string, idempotencyKey: string): string {
  return JSON.stringify([source, idempotencyKey]);
}
