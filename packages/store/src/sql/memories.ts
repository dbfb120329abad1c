import type { Timeline } from '@canon/core';
import type { Sql } from '../db.js';
import type { CandidateRefRow } from './candidates.js';

export interface MemoryRow {
  id: string;
  subject: string;
  key: string;
  revision: number;
  etag: string;
  digest: string;
  status: string;
  timeline: Timeline;
  /** Near memories of the same subject and scope (design §1): shown, never applied. */
  candidates?: CandidateRefRow[];
}

const COLUMNS = 'id, subject, key, revision, etag, digest, status, timeline, candidates';

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

/** A memory as recall of a subject reads it: its stored summary, not its timeline. */
export interface MemoryRecallRow {
  id: string;
  subject: string;
  key: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  etag: string;
  /** The view from the timeline's last change on (see `memories.summary`); null on older rows. */
  summary: unknown;
  candidates?: CandidateRefRow[];
}

const RECALL_COLUMNS = 'id, subject, key, scope, owner, etag, summary, candidates';

/**
 * One page of a subject's memories in key order (bytewise, as JavaScript compares the keys of a
 * refold), after the key `after` (exclusive).
 */
export async function recallRowsOfSubject(sql: Sql, workspaceId: string, subject: string, page: { after: string | null; limit: number }): Promise<MemoryRecallRow[]> {
  // Two spellings, so the planner reads the page from memories_subject_key_idx either way.
  const { rows } =
    page.after === null
      ? await sql.query<MemoryRecallRow>(`SELECT ${RECALL_COLUMNS} FROM memories WHERE workspace_id = $1 AND subject = $2 ORDER BY key COLLATE "C" LIMIT $3`, [
          workspaceId,
          subject,
          page.limit,
        ])
      : await sql.query<MemoryRecallRow>(
          `SELECT ${RECALL_COLUMNS} FROM memories WHERE workspace_id = $1 AND subject = $2 AND key COLLATE "C" > $3 ORDER BY key COLLATE "C" LIMIT $4`,
          [workspaceId, subject, page.after, page.limit],
        );
  return rows;
}

/** Each memory's stored summary and side, for verify to hold against its timeline. */
export async function summariesOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<Map<string, { summary: unknown; side: unknown }>> {
  const { rows } = await sql.query<{ id: string; summary: unknown; side: unknown }>('SELECT id, summary, side FROM memories WHERE workspace_id = $1 AND subject = $2', [
    workspaceId,
    subject,
  ]);
  return new Map(rows.map((r) => [r.id, { summary: r.summary, side: r.side }]));
}

/**
 * What a page needs of a candidate off the page: its key, scope and owner, and its side (status,
 * predicate, qualifiers and the values it holds) — not the evidence and source texts of its
 * summary. A row written before `side` existed has its side taken from its summary here.
 */
export async function candidateRowsByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<MemoryRecallRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<MemoryRecallRow>(
    `SELECT id, subject, key, scope, owner, etag,
       coalesce(side, CASE WHEN summary IS NULL THEN NULL ELSE jsonb_build_object(
         'v', summary->'v', 'from', summary->'from',
         'memory', jsonb_build_object(
           'status', summary#>'{memory,status}', 'predicate', summary#>'{memory,predicate}', 'qualifiers', summary#>'{memory,qualifiers}',
           'current', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb) FROM jsonb_array_elements(summary#>'{memory,current}') WITH ORDINALITY AS c(e, i)),
           'conflict', (SELECT coalesce(jsonb_agg(jsonb_build_object('value', c.e->'value') ORDER BY c.i), '[]'::jsonb) FROM jsonb_array_elements(summary#>'{memory,conflict}') WITH ORDINALITY AS c(e, i)))) END) AS summary
     FROM memories WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, ids],
  );
  return rows;
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
  /** The timeline as JSON, when the caller has it already (any spelling: jsonb keeps the value). */
  json?: string;
  subject: string;
  etag: string;
  digest: string;
  /** What recall reads instead of the timeline (see `memories.summary`). */
  summary: unknown;
  /** What a page shows of this memory as another's candidate (see `memories.side`). */
  side: unknown;
}

/**
 * Inserts new memories, one statement for the lot: the rows travel as one JSON array, so a
 * compile that creates 200 memories pays one round trip, not 200.
 */
export async function insertMemories(sql: Sql, workspaceId: string, writes: readonly MemoryWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await sql.query(
    `INSERT INTO memories (workspace_id, id, subject, key, scope, owner, predicate, qualifiers, revision, etag, digest, status, timeline, summary, side)
     SELECT $1, m->>'id', m->>'subject', m->>'key', m->>'scope', m->>'owner', m->>'predicate', m->'qualifiers', (m->>'revision')::int,
       m->>'etag', m->>'digest', m->>'status', m->'timeline', m->'summary', m->'side'
     FROM jsonb_array_elements($2::jsonb) AS m`,
    [workspaceId, jsonRows(writes.map((w) => ({ w })))],
  );
}

export type ConditionalUpdate = { ok: true } | { ok: false; reason: 'stale'; id: string };

/**
 * Writes recomputed timelines, each only if its row is still the revision that was read: one
 * statement for the lot. Stale when any row was not written (the caller's transaction fails).
 */
export async function updateMemoriesIfRevision(
  sql: Sql,
  workspaceId: string,
  updates: ReadonlyArray<{ write: MemoryWrite; expected: { revision: number; etag: string } }>,
): Promise<ConditionalUpdate> {
  if (updates.length === 0) return { ok: true };
  const { rows } = await sql.query<{ id: string }>(
    `UPDATE memories SET revision = (m->>'revision')::int, etag = m->>'etag', digest = m->>'digest', status = m->>'status',
       timeline = m->'timeline', summary = m->'summary', side = m->'side'
     FROM jsonb_array_elements($2::jsonb) AS m
     WHERE memories.workspace_id = $1 AND memories.id = m->>'id'
       AND memories.revision = (m->>'expected_revision')::int AND memories.etag = m->>'expected_etag'
     RETURNING memories.id`,
    [workspaceId, jsonRows(updates.map((u) => ({ w: u.write, expected: u.expected })))],
  );
  if (rows.length === updates.length) return { ok: true };
  const written = new Set(rows.map((r) => r.id));
  return { ok: false, reason: 'stale', id: updates.find((u) => !written.has(u.write.timeline.memory_id))!.write.timeline.memory_id };
}

/** Memory rows as one JSON array (the timeline serialized once, as the bytes of the array). */
function jsonRows(rows: ReadonlyArray<{ w: MemoryWrite; expected?: { revision: number; etag: string } }>): string {
  return `[${rows
    .map(({ w, expected }) => {
      const t = w.timeline;
      const head = JSON.stringify({
        id: t.memory_id,
        subject: w.subject,
        key: t.key,
        scope: t.fact_key.scope,
        owner: t.fact_key.owner,
        predicate: t.fact_key.predicate,
        qualifiers: t.fact_key.qualifiers,
        revision: t.revision,
        etag: w.etag,
        digest: w.digest,
        status: t.status_hint,
        summary: w.summary,
        side: w.side,
        ...(expected ? { expected_revision: expected.revision, expected_etag: expected.etag } : {}),
      });
      return `${head.slice(0, -1)},"timeline":${w.json ?? JSON.stringify(t)}}`;
    })
    .join(',')}]`;
}

export interface ProjectionChange {
  write: MemoryWrite;
  /** The timeline the rows were projected from so far; null for a new memory. */
  before: Timeline | null;
}

type ValueRow = { w: MemoryWrite; v: Timeline['values'][number]; ord: number };
type EvidenceRow = { x: ValueRow; e: Timeline['values'][number]['evidence'][number] };
type DecisionRow = { w: MemoryWrite; d: Timeline['decisions'][number] };

const valueId = (memoryId: string, ord: number) => `${memoryId}\u0000${ord}`;
const evidenceId = (memoryId: string, ord: number, e: { source: string; idempotency_key: string; index: number }) =>
  JSON.stringify([memoryId, ord, e.source, e.idempotency_key, e.index]);
const decisionId = (memoryId: string, d: Timeline['decisions'][number]) =>
  JSON.stringify([memoryId, d.claim.source, d.claim.idempotency_key, d.claim.index]);
/**
 * What a decision row holds, field by field: a timeline read back from jsonb has its members
 * in jsonb's order, so comparing JSON.stringify of the two objects found every row changed and
 * rewrote all of a hot key's decisions at each compile.
 */
const projectedDecision = (d: Timeline['decisions'][number]) =>
  JSON.stringify([d.kind, d.target ? [d.target.source, d.target.idempotency_key, d.target.index] : null, d.reason]);
const projectedValue = (v: Timeline['values'][number]) =>
  JSON.stringify([v.value, v.valid_from, v.valid_to, v.status, v.superseded_by, v.conditions, v.standing, v.support]);

/**
 * Brings the row projections of these memories (values, evidence, decisions) in line with
 * their new timelines, writing only the rows that differ from what `before` projected: a key
 * restated ten thousand times gets a few rows written per change, not its whole history.
 */
export async function writeProjections(sql: Sql, workspaceId: string, changes: readonly ProjectionChange[]): Promise<void> {
  if (changes.length === 0) return;
  const valuesToWrite: ValueRow[] = [];
  const valuesToDelete: Array<{ memory_id: string; ord: number }> = [];
  const evidenceToWrite: EvidenceRow[] = [];
  const evidenceToDelete: Array<{ memory_id: string; ord: number; source: string; idempotency_key: string; index: number }> = [];
  const decisionsToWrite: DecisionRow[] = [];
  const decisionsToDelete: Array<{ memory_id: string; source: string; idempotency_key: string; index: number }> = [];

  for (const { write: w, before } of changes) {
    const id = w.timeline.memory_id;
    if (!before) {
      // A new memory: every row is written, with no projection to compare against.
      w.timeline.values.forEach((v, ord) => {
        valuesToWrite.push({ w, v, ord });
        for (const e of v.evidence) evidenceToWrite.push({ x: { w, v, ord }, e });
      });
      for (const d of w.timeline.decisions) decisionsToWrite.push({ w, d });
      continue;
    }
    const old = before.values;
    w.timeline.values.forEach((v, ord) => {
      const prior = old[ord];
      if (!prior || projectedValue(prior) !== projectedValue(v) || searchText(before, prior.value) !== searchText(w.timeline, v.value)) {
        valuesToWrite.push({ w, v, ord });
      }
      const had = new Set((prior?.evidence ?? []).map((e) => evidenceId(id, ord, e)));
      for (const e of v.evidence) if (!had.has(evidenceId(id, ord, e))) evidenceToWrite.push({ x: { w, v, ord }, e });
    });
    old.forEach((prior, ord) => {
      const now = w.timeline.values[ord];
      if (!now) valuesToDelete.push({ memory_id: id, ord });
      const keep = new Set((now?.evidence ?? []).map((e) => evidenceId(id, ord, e)));
      for (const e of prior.evidence) if (!keep.has(evidenceId(id, ord, e))) evidenceToDelete.push({ memory_id: id, ord, source: e.source, idempotency_key: e.idempotency_key, index: e.index });
    });
    const priorDecisions = new Map(before.decisions.map((d) => [decisionId(id, d), projectedDecision(d)]));
    const nowIds = new Set<string>();
    for (const d of w.timeline.decisions) {
      const did = decisionId(id, d);
      nowIds.add(did);
      if (priorDecisions.get(did) !== projectedDecision(d)) decisionsToWrite.push({ w, d });
    }
    for (const d of before.decisions) {
      if (!nowIds.has(decisionId(id, d))) decisionsToDelete.push({ memory_id: id, source: d.claim.source, idempotency_key: d.claim.idempotency_key, index: d.claim.index });
    }
  }

  if (valuesToDelete.length > 0) {
    await sql.query(
      `DELETE FROM memory_values v USING unnest($2::text[], $3::int[]) AS d(memory_id, ord)
       WHERE v.workspace_id = $1 AND v.memory_id = d.memory_id AND v.ord = d.ord`,
      [workspaceId, valuesToDelete.map((d) => d.memory_id), valuesToDelete.map((d) => d.ord)],
    );
  }
  if (evidenceToDelete.length > 0) {
    await sql.query(
      `DELETE FROM evidence e USING unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[]) AS d(memory_id, ord, source, idempotency_key, idx)
       WHERE e.workspace_id = $1 AND e.memory_id = d.memory_id AND e.value_ord = d.ord AND e.source = d.source
         AND e.idempotency_key = d.idempotency_key AND e.claim_index = d.idx`,
      [
        workspaceId,
        evidenceToDelete.map((d) => d.memory_id),
        evidenceToDelete.map((d) => d.ord),
        evidenceToDelete.map((d) => d.source),
        evidenceToDelete.map((d) => d.idempotency_key),
        evidenceToDelete.map((d) => d.index),
      ],
    );
  }
  if (decisionsToDelete.length > 0) {
    await sql.query(
      `DELETE FROM claim_decisions x USING unnest($2::text[], $3::text[], $4::text[], $5::int[]) AS d(memory_id, source, idempotency_key, idx)
       WHERE x.workspace_id = $1 AND x.memory_id = d.memory_id AND x.source = d.source
         AND x.idempotency_key = d.idempotency_key AND x.claim_index = d.idx`,
      [
        workspaceId,
        decisionsToDelete.map((d) => d.memory_id),
        decisionsToDelete.map((d) => d.source),
        decisionsToDelete.map((d) => d.idempotency_key),
        decisionsToDelete.map((d) => d.index),
      ],
    );
  }

  if (valuesToWrite.length > 0) {
    await sql.query(
      `INSERT INTO memory_values (workspace_id, memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to,
         status, superseded_by, conditions, standing, support)
       SELECT $1, u.memory_id, u.ord, u.subject, u.scope, u.owner, u.value, u.search_text, u.valid_from, u.valid_to,
         u.status, u.superseded_by, u.conditions, u.standing, u.support
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::timestamptz[],
                   $10::timestamptz[], $11::text[], $12::text[], $13::jsonb[], $14::int[], $15::int[])
         AS u(memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to, status, superseded_by, conditions, standing, support)
       ON CONFLICT (workspace_id, memory_id, ord) DO UPDATE SET value = EXCLUDED.value, search_text = EXCLUDED.search_text,
         valid_from = EXCLUDED.valid_from, valid_to = EXCLUDED.valid_to, status = EXCLUDED.status,
         superseded_by = EXCLUDED.superseded_by, conditions = EXCLUDED.conditions, standing = EXCLUDED.standing,
         support = EXCLUDED.support`,
      [
        workspaceId,
        valuesToWrite.map((x) => x.w.timeline.memory_id),
        valuesToWrite.map((x) => x.ord),
        valuesToWrite.map((x) => x.w.subject),
        valuesToWrite.map((x) => x.w.timeline.fact_key.scope),
        valuesToWrite.map((x) => x.w.timeline.fact_key.owner),
        valuesToWrite.map((x) => JSON.stringify(x.v.value)),
        valuesToWrite.map((x) => searchText(x.w.timeline, x.v.value)),
        valuesToWrite.map((x) => x.v.valid_from),
        valuesToWrite.map((x) => x.v.valid_to),
        valuesToWrite.map((x) => x.v.status),
        valuesToWrite.map((x) => x.v.superseded_by),
        valuesToWrite.map((x) => JSON.stringify(x.v.conditions)),
        valuesToWrite.map((x) => x.v.standing),
        valuesToWrite.map((x) => x.v.support),
      ],
    );
  }

  if (evidenceToWrite.length > 0) {
    await sql.query(
      `INSERT INTO evidence (workspace_id, memory_id, value_ord, source, idempotency_key, claim_index, lineage, source_ref)
       SELECT $1, u.memory_id, u.value_ord, u.source, u.idempotency_key, u.claim_index, u.lineage, u.source_ref
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[])
         AS u(memory_id, value_ord, source, idempotency_key, claim_index, lineage, source_ref)
       ON CONFLICT DO NOTHING`,
      [
        workspaceId,
        evidenceToWrite.map((r) => r.x.w.timeline.memory_id),
        evidenceToWrite.map((r) => r.x.ord),
        evidenceToWrite.map((r) => r.e.source),
        evidenceToWrite.map((r) => r.e.idempotency_key),
        evidenceToWrite.map((r) => r.e.index),
        evidenceToWrite.map((r) => r.e.lineage),
        evidenceToWrite.map((r) => r.e.source_ref),
      ],
    );
  }

  if (decisionsToWrite.length > 0) {
    await sql.query(
      `INSERT INTO claim_decisions (workspace_id, memory_id, source, idempotency_key, claim_index, kind, target, reason)
       SELECT $1, u.memory_id, u.source, u.idempotency_key, u.claim_index, u.kind, u.target, u.reason
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::jsonb[], $8::text[])
         AS u(memory_id, source, idempotency_key, claim_index, kind, target, reason)
       ON CONFLICT (workspace_id, memory_id, source, idempotency_key, claim_index) DO UPDATE SET kind = EXCLUDED.kind,
         target = EXCLUDED.target, reason = EXCLUDED.reason`,
      [
        workspaceId,
        decisionsToWrite.map((r) => r.w.timeline.memory_id),
        decisionsToWrite.map((r) => r.d.claim.source),
        decisionsToWrite.map((r) => r.d.claim.idempotency_key),
        decisionsToWrite.map((r) => r.d.claim.index),
        decisionsToWrite.map((r) => r.d.kind),
        decisionsToWrite.map((r) => (r.d.target ? JSON.stringify(r.d.target) : null)),
        decisionsToWrite.map((r) => r.d.reason),
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
  await sql.query(`DELETE FROM claim_decisions WHERE workspace_id = $1 AND memory_id IN (${ids})`, [workspaceId, subject]);
  await sql.query('DELETE FROM memory_values WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM memories WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM claims WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM episode_markers WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
  await sql.query('DELETE FROM subjects WHERE workspace_id = $1 AND subject = $2', [workspaceId, subject]);
}

/** What a rebuild needs of a subject's memories before it deletes them: enough to tell what changed. */
export interface MemoryHeadRow {
  id: string;
  key: string;
  predicate: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  digest: string;
  summary: unknown;
}

export async function memoryHeadsOfSubject(sql: Sql, workspaceId: string, subject: string): Promise<MemoryHeadRow[]> {
  const { rows } = await sql.query<MemoryHeadRow>('SELECT id, key, predicate, scope, owner, digest, summary FROM memories WHERE workspace_id = $1 AND subject = $2', [
    workspaceId,
    subject,
  ]);
  return rows;
}
