import type { Sql } from '../db.js';
import type { MemoryWrite } from './rows.js';
import { jsonColumn, jsonTextsColumn, rowsFromJsonColumns } from '../json-columns.js';

/**
 * Stores the blocks that memories' writes sealed (`memory_blocks`): a memory folded from all its
 * claims has its stored blocks dropped first, since its timeline was hashed and cut afresh; a
 * resumed one only adds the blocks that filled. One statement each, whatever the number of rows.
 */
export async function writeBlocks(sql: Sql, workspaceId: string, writes: readonly MemoryWrite[]): Promise<void> {
  const replaced = writes.filter((w) => w.replaceBlocks).map((w) => w.timeline.memory_id);
  if (replaced.length > 0) await sql.query('DELETE FROM memory_blocks WHERE workspace_id = $1 AND memory_id = ANY($2::text[])', [workspaceId, replaced]);
  const blocks = writes.flatMap((w) => (w.blocks ?? []).map((b) => ({ id: w.timeline.memory_id, kind: b.kind, n: b.n, json: b.json })));
  if (blocks.length === 0) return;
  // Each block's canonical JSON is stored as sent (`jsonTextsColumn`).
  await sql.query(
    `INSERT INTO memory_blocks (workspace_id, memory_id, kind, n, items)
     SELECT $1, b.memory_id, b.kind, b.n::int, b.items
     FROM ${rowsFromJsonColumns(2, ['text', 'text', 'text', 'json'])} AS b(memory_id, kind, n, items)`,
    [workspaceId, jsonColumn(blocks, (b) => b.id), jsonColumn(blocks, (b) => b.kind), jsonColumn(blocks, (b) => b.n), jsonTextsColumn(blocks, (b) => b.json)],
  );
}
