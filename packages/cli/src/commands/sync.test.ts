import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SyncConnectorResult } from '@canon/runtime';
import { printSummary } from './sync.js';

const run = (created: number, episodesProcessed: number, memoriesCreated: number): SyncConnectorResult => ({
  workspace_id: 'default',
  instance_id: 'workspace:demo',
  connector: 'workspace',
  batches: 1,
  retries: 0,
  cursor: null,
  dry_run: false,
  fetched: created,
  submitted: created,
  created,
  duplicates: 0,
  retractions: 0,
  erased: 0,
  redacted: 0,
  refused: 0,
  skipped: {},
  statements: {},
  key_conflicts: [],
  compiled: { subjects: 2, episodes_processed: episodesProcessed, memories_created: memoriesCreated, memories_updated: 0, conflicts_opened: 0, tombstoned: 0, failed: 0 },
});

function printed(summary: SyncConnectorResult): string[] {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  printSummary(summary, {});
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('printSummary', () => {
  it('counts what its compile did when the compile read the new episodes', () => {
    expect(printed(run(2, 2, 3))[1]).toBe('compiled 2 subjects: memories created 3, updated 0, ended 0, conflicts opened 0');
  });

  it('says the new episodes were compiled already, not "memories created 0", when a server compiled them first', () => {
    expect(printed(run(2, 0, 0))[1]).toBe('compiled 2 subjects: nothing was left to compile (the new episodes were compiled as they arrived)');
  });

  it('says its counts are of the episodes it compiled when a server compiled the others first', () => {
    expect(printed(run(716, 5, 0))[1]).toBe(
      'compiled 2 subjects: memories created 0, updated 0, ended 0, conflicts opened 0 (of the last 5 new episodes: the other 711 were compiled as they arrived)',
    );
  });

  it('keeps the counts when the run created nothing (a re-run: zeros are the answer)', () => {
    expect(printed(run(0, 0, 0))[1]).toBe('compiled 2 subjects: memories created 0, updated 0, ended 0, conflicts opened 0');
  });
});
