import type { Timeline } from '@canon/core';
import type { Sql } from '../db.js';

export interface MemoryRow {
  id: string;
  subject: string;
  key: string;
  revision: number;
  etag: string;
  digest: string;
  status: string;
  timeline: Timeline;
}

const COLUMNS = 'id, subject, key, revision, etag, digest, status, timeline';

export async function memoriesByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<Map<string, MemoryRow>> {
  const out = new Map<string, MemoryRow>();
  if (ids.length === 0) return out;
  const { rows } = await sql.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])`, [
    workspaceId,
    ids,
  ]);
  for (const r of rows) out.set(r.id, r);
  return out;
}

export async function memoriesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<MemoryRow[]> {
  const { rows } = await sql.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY key`,
    [workspaceId, subject],
  );
  return rows;
}

export interface MemoryWrite {
  timeline: Timeline;
  subject: string;
  etag: string;
  digest: string;
}

export async function insertMemory(sql: Sql, workspaceId: string, m: MemoryWrite): Promise<void> {
  const t = m.timeline;
  await sql.query(
    `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      workspaceId,
      t.memory_id,
      m.subject,
      t.key,
      t.fact_key.scope,
      t.fact_key.owner,
      t.fact_key.predicate,
      JSON.stringify(t.fact_key.qualifiers),
      t.revision,
      m.etag,
      m.digest,
      t.status_hint,
      JSON.stringify(t),
    ],
  );
}

export type ConditionalUpdate = { ok: true } | { ok: false; reason: 'stale' };

/** Writes a recomputed timeline only if the row is still the revision that was read. */
export async function updateMemoryIfRevision(sql: Sql, workspaceId: string, m: MemoryWrite, expected: { revision: number; etag: string }): Promise<ConditionalUpdate> {
  const t = m.timeline;
  const { rowCount } = await sql.query(
    `UPDATE memories SET revision = $3, etag = $4, digest = $5, status = $6, timeline = $7
     WHERE workspace_id = $1 AND id = $2 AND revision = $8 AND etag = $9`,
    [workspaceId, t.memory_id, t.revision, m.etag, m.digest, t.status_hint, JSON.stringify(t), expected.revision, expected.etag],
  );
  return rowCount === 1 ? { ok: true } : { ok: false, reason: 'stale' };
}

/**
 * Replaces the row projections of these memories (values, evidence, dispositions) from their
 * timelines: only memories whose timeline changed are passed, so the cost follows the change.
 */
export async function replaceProjections(sql: Sql, workspaceId: string, writes: readonly MemoryWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const ids = writes.map((w) => w.timeline.memory_id);
  await sql.query('DELETE FROM memory_values WHERE workspace_id = $1 AND memory_id = ANY($2::text[])', [workspaceId, ids]);
  await sql.query('DELETE FROM evidence WHERE workspace_id = $1 AND memory_id = ANY($2::text[])', [workspaceId, ids]);
  await sql.query('DELETE FROM dispositions WHERE workspace_id = $1 AND memory_id = ANY($2::text[])', [workspaceId, ids]);

  const values = writes.flatMap((w) =>
    w.timeline.values.map((v, ord) => ({ w, v, ord })),
  );
  if (values.length > 0) {
    await sql.query(
      `INSERT INTO memory_values (workspace_id, memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to,
         status, superseded_by, conditions, standing, support)
       SELECT $1, u.memory_id, u.ord, u.subject, u.scope, u.owner, u.value, u.search_text, u.valid_from, u.valid_to,
         u.status, u.superseded_by, u.conditions, u.standing, u.support
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::timestamptz[],
                   $10::timestamptz[], $11::text[], $12::text[], $13::jsonb[], $14::int[], $15::int[])
         AS u(memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to, status, superseded_by, conditions, standing, support)`,
      [
        workspaceId,
        values.map((x) => x.w.timeline.memory_id),
        values.map((x) => x.ord),
        values.map((x) => x.w.subject),
        values.map((x) => x.w.timeline.fact_key.scope),
        values.map((x) => x.w.timeline.fact_key.owner),
        values.map((x) => JSON.stringify(x.v.value)),
        values.map((x) => searchText(x.w.timeline, x.v.value)),
        values.map((x) => x.v.valid_from),
        values.map((x) => x.v.valid_to),
        values.map((x) => x.v.status),
        values.map((x) => x.v.superseded_by),
        values.map((x) => JSON.stringify(x.v.conditions)),
        values.map((x) => x.v.standing),
        values.map((x) => x.v.support),
      ],
    );
  }

  const evidence = values.flatMap((x) => x.v.evidence.map((e) => ({ x, e })));
  if (evidence.length > 0) {
    await sql.query(
      `INSERT INTO evidence (workspace_id, memory_id, value_ord, source, idempotency_key, claim_index, lineage, source_ref)
       SELECT $1, u.memory_id, u.value_ord, u.source, u.idempotency_key, u.claim_index, u.lineage, u.source_ref
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[])
         AS u(memory_id, value_ord, source, idempotency_key, claim_index, lineage, source_ref)
       ON CONFLICT DO NOTHING`,
      [
        workspaceId,
        evidence.map((r) => r.x.w.timeline.memory_id),
        evidence.map((r) => r.x.ord),
        evidence.map((r) => r.e.source),
        evidence.map((r) => r.e.idempotency_key),
        evidence.map((r) => r.e.index),
        evidence.map((r) => r.e.lineage),
        evidence.map((r) => r.e.source_ref),
      ],
    );
  }

  const dispositions = writes.flatMap((w) => w.timeline.dispositions.map((d) => ({ w, d })));
  if (dispositions.length > 0) {
    await sql.query(
      `INSERT INTO dispositions (workspace_id, memory_id, source, idempotency_key, claim_index, kind, target, reason)
       SELECT $1, u.memory_id, u.source, u.idempotency_key, u.claim_index, u.kind, u.target, u.reason
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::jsonb[], $8::text[])
         AS u(memory_id, source, idempotency_key, claim_index, kind, target, reason)
       ON CONFLICT DO NOTHING`,
      [
        workspaceId,
        dispositions.map((r) => r.w.timeline.memory_id),
        dispositions.map((r) => r.d.claim.source),
        dispositions.map((r) => r.d.claim.idempotency_key),
        dispositions.map((r) => r.d.claim.index),
        dispositions.map((r) => r.d.kind),
        dispositions.map((r) => (r.d.target ? JSON.stringify(r.d.target) : null)),
        dispositions.map((r) => r.d.reason),
      ],
    );
  }
}

/** Predicate and value as one text for full-text and trigram search. */
export function searchText(t: Timeline, value: unknown): string {
  const v = typeof value === 'string' ? value : JSON.stringify(value);
  const q = Object.entries(t.fact_key.qualifiers)
    .map(([k, x]) => `${k} ${x}`)
    .join(' ');
  return `${t.fact_key.predicate.replace(/[{}_]/g, ' ')} ${q} ${v}`.replace(/\s+/g, ' ').trim();
}

/** Removes every derived row of a subject (rebuild starts from nothing but the log). */
export async function deleteDerivedOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<void> {
  const ids = `SELECT id FROM memories WHERE workspace_id = $1 AND subject = $2`;
  await sql.query(`DELETE FROM evidence WHERE workspace_id = $1 AND memory_id IN (${ids})`, [workspaceId, subject]);
  await sql.query(`DELETE FROM dispositions WHERE workspace_id = $1 AND memory_id IN (${ids})`, [workspaceId, subject]);
  await sql.query('DELETE FROM memory_values WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM memories WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM claims WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM episode_markers WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM subjects WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
}
