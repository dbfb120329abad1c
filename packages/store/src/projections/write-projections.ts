import type { Timeline } from '@canon/core';
import type { Sql } from '../db.js';
import type { MemoryWrite } from '../memories/rows.js';
import { searchText } from './search-text.js';

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

type Ref = { source: string; idempotency_key: string; index: number };

const sameRef = (a: Ref, b: Ref) => a.index === b.index && a.idempotency_key === b.idempotency_key && a.source === b.source;

/** What `projectedDecision` compares, without building its strings. */
const sameDecision = (a: Timeline['decisions'][number], b: Timeline['decisions'][number]) =>
  a.kind === b.kind && a.reason === b.reason && (a.target ? !!b.target && sameRef(a.target, b.target) : !b.target);

/** Whether a value row would be written unchanged: strings are built only for the value and its conditions. */
const sameValue = (a: Timeline['values'][number], b: Timeline['values'][number]) =>
  a.valid_from === b.valid_from &&
  a.valid_to === b.valid_to &&
  a.status === b.status &&
  a.superseded_by === b.superseded_by &&
  a.standing === b.standing &&
  a.support === b.support &&
  JSON.stringify(a.conditions) === JSON.stringify(b.conditions) &&
  JSON.stringify(a.value) === JSON.stringify(b.value);

/**
 * The two lists after their longest common prefix of same-named items (`same`), each pair of
 * that prefix handed to `paired`. A key restated ten thousand times changes only at its end:
 * comparing the prefix in place costs no string per item, where naming every item cost such a
 * compile about 75 ms of its 0.5 s.
 */
function unmatchedTails<T>(before: readonly T[], after: readonly T[], same: (a: T, b: T) => boolean, paired?: (a: T, b: T) => void): [readonly T[], readonly T[]] {
  let i = 0;
  while (i < before.length && i < after.length && same(before[i]!, after[i]!)) {
    paired?.(before[i]!, after[i]!);
    i += 1;
  }
  return i === 0 ? [before, after] : [before.slice(i), after.slice(i)];
}

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
  // Rows of memories that had none: no stored row can be in their way (a memory's rows are deleted
  // with it), so they are inserted without ON CONFLICT, whose arbiter check cost PostgreSQL a third
  // more per row of a first compile's 100,000 evidence and decision rows.
  const fresh = { values: [] as ValueRow[], evidence: [] as EvidenceRow[], decisions: [] as DecisionRow[] };

  for (const { write: w, before } of changes) {
    const id = w.timeline.memory_id;
    if (!before) {
      // A new memory: every row is written, with no projection to compare against.
      w.timeline.values.forEach((v, ord) => {
        fresh.values.push({ w, v, ord });
        for (const e of v.evidence) fresh.evidence.push({ x: { w, v, ord }, e });
      });
      for (const d of w.timeline.decisions) fresh.decisions.push({ w, d });
      continue;
    }
    const old = before.values;
    // Searchable text is the predicate and qualifiers with the value: with the same key text on
    // both sides, an unchanged value has an unchanged text.
    const sameKeyText = before.fact_key.predicate === w.timeline.fact_key.predicate && JSON.stringify(before.fact_key.qualifiers) === JSON.stringify(w.timeline.fact_key.qualifiers);
    w.timeline.values.forEach((v, ord) => {
      const prior = old[ord];
      if (!prior || !sameValue(prior, v) || (!sameKeyText && searchText(before, prior.value) !== searchText(w.timeline, v.value))) {
        valuesToWrite.push({ w, v, ord });
      }
      const [, has] = unmatchedTails(prior?.evidence ?? [], v.evidence, sameRef);
      if (has.length === 0) return;
      const hadIds = new Set((prior?.evidence ?? []).map((e) => evidenceId(id, ord, e)));
      for (const e of has) if (!hadIds.has(evidenceId(id, ord, e))) evidenceToWrite.push({ x: { w, v, ord }, e });
    });
    old.forEach((prior, ord) => {
      const now = w.timeline.values[ord];
      if (!now) valuesToDelete.push({ memory_id: id, ord });
      const [had] = unmatchedTails(prior.evidence, now?.evidence ?? [], sameRef);
      if (had.length === 0) return;
      const keep = new Set((now?.evidence ?? []).map((e) => evidenceId(id, ord, e)));
      for (const e of had) if (!keep.has(evidenceId(id, ord, e))) evidenceToDelete.push({ memory_id: id, ord, source: e.source, idempotency_key: e.idempotency_key, index: e.index });
    });
    // Decisions are named by their claim, once each in a timeline (one per claim folded): the
    // common prefix is compared in place, and only what follows it is matched by name. Evidence
    // above is matched against the whole other list once its tails differ.
    const [gone, now] = unmatchedTails(before.decisions, w.timeline.decisions, (a, b) => sameRef(a.claim, b.claim), (a, b) => {
      if (!sameDecision(a, b)) decisionsToWrite.push({ w, d: b });
    });
    const priorDecisions = new Map(gone.map((d) => [decisionId(id, d), projectedDecision(d)]));
    const nowIds = new Set<string>();
    for (const d of now) {
      const did = decisionId(id, d);
      nowIds.add(did);
      if (priorDecisions.get(did) !== projectedDecision(d)) decisionsToWrite.push({ w, d });
    }
    for (const d of gone) {
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

  await insertValueRows(sql, workspaceId, fresh.values, false);
  await insertValueRows(sql, workspaceId, valuesToWrite, true);
  await insertEvidenceRows(sql, workspaceId, fresh.evidence, false);
  await insertEvidenceRows(sql, workspaceId, evidenceToWrite, true);
  await insertDecisionRows(sql, workspaceId, fresh.decisions, false);
  await insertDecisionRows(sql, workspaceId, decisionsToWrite, true);
}

const VALUE_UPSERT = `ON CONFLICT (workspace_id, memory_id, ord) DO UPDATE SET value = EXCLUDED.value, search_text = EXCLUDED.search_text,
  valid_from = EXCLUDED.valid_from, valid_to = EXCLUDED.valid_to, status = EXCLUDED.status,
  superseded_by = EXCLUDED.superseded_by, conditions = EXCLUDED.conditions, standing = EXCLUDED.standing,
  support = EXCLUDED.support`;

const DECISION_UPSERT = `ON CONFLICT (workspace_id, memory_id, source, idempotency_key, claim_index) DO UPDATE SET kind = EXCLUDED.kind,
  target = EXCLUDED.target, reason = EXCLUDED.reason`;

async function insertValueRows(sql: Sql, workspaceId: string, rows: readonly ValueRow[], conflict: boolean): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO memory_values (workspace_id, memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to,
       status, superseded_by, conditions, standing, support)
     SELECT $1, u.memory_id, u.ord, u.subject, u.scope, u.owner, u.value, u.search_text, u.valid_from, u.valid_to,
       u.status, u.superseded_by, u.conditions, u.standing, u.support
     FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::timestamptz[],
                 $10::timestamptz[], $11::text[], $12::text[], $13::jsonb[], $14::int[], $15::int[])
       AS u(memory_id, ord, subject, scope, owner, value, search_text, valid_from, valid_to, status, superseded_by, conditions, standing, support)
       ${conflict ? VALUE_UPSERT : ''}`,
    [
      workspaceId,
      rows.map((x) => x.w.timeline.memory_id),
      rows.map((x) => x.ord),
      rows.map((x) => x.w.subject),
      rows.map((x) => x.w.timeline.fact_key.scope),
      rows.map((x) => x.w.timeline.fact_key.owner),
      rows.map((x) => JSON.stringify(x.v.value)),
      rows.map((x) => searchText(x.w.timeline, x.v.value)),
      rows.map((x) => x.v.valid_from),
      rows.map((x) => x.v.valid_to),
      rows.map((x) => x.v.status),
      rows.map((x) => x.v.superseded_by),
      rows.map((x) => JSON.stringify(x.v.conditions)),
      rows.map((x) => x.v.standing),
      rows.map((x) => x.v.support),
    ],
  );
}

async function insertEvidenceRows(sql: Sql, workspaceId: string, rows: readonly EvidenceRow[], conflict: boolean): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO evidence (workspace_id, memory_id, value_ord, source, idempotency_key, claim_index, lineage, source_ref)
     SELECT $1, u.memory_id, u.value_ord, u.source, u.idempotency_key, u.claim_index, u.lineage, u.source_ref
     FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[])
       AS u(memory_id, value_ord, source, idempotency_key, claim_index, lineage, source_ref)
       ${conflict ? 'ON CONFLICT DO NOTHING' : ''}`,
    [
      workspaceId,
      rows.map((r) => r.x.w.timeline.memory_id),
      rows.map((r) => r.x.ord),
      rows.map((r) => r.e.source),
      rows.map((r) => r.e.idempotency_key),
      rows.map((r) => r.e.index),
      rows.map((r) => r.e.lineage),
      rows.map((r) => r.e.source_ref),
    ],
  );
}

async function insertDecisionRows(sql: Sql, workspaceId: string, rows: readonly DecisionRow[], conflict: boolean): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO claim_decisions (workspace_id, memory_id, source, idempotency_key, claim_index, kind, target, reason)
     SELECT $1, u.memory_id, u.source, u.idempotency_key, u.claim_index, u.kind, u.target, u.reason
     FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::jsonb[], $8::text[])
       AS u(memory_id, source, idempotency_key, claim_index, kind, target, reason)
       ${conflict ? DECISION_UPSERT : ''}`,
    [
      workspaceId,
      rows.map((r) => r.w.timeline.memory_id),
      rows.map((r) => r.d.claim.source),
      rows.map((r) => r.d.claim.idempotency_key),
      rows.map((r) => r.d.claim.index),
      rows.map((r) => r.d.kind),
      rows.map((r) => (r.d.target ? JSON.stringify(r.d.target) : null)),
      rows.map((r) => r.d.reason),
    ],
  );
}

