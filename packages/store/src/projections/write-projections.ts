import type { Timeline } from '@canon/core';
import type { Sql } from '../db.js';
import type { MemoryWrite } from '../memories/rows.js';
import { searchText } from './search-text.js';
import { jsonColumn, rowsFromJsonColumns } from '../json-columns.js';

export interface ProjectionChange {
  write: MemoryWrite;
  /** The timeline the rows were projected from so far; null for a new memory. */
  before: Timeline | null;
  /**
   * How many values come before the ones `before` and the write's timeline hold: both are heads
   * past the same sealed blocks (a resumed compile), whose rows stay as they are. 0: whole.
   */
  base?: number;
}

type ValueRow = { w: MemoryWrite; v: Timeline['values'][number]; ord: number };

type EvidenceRow = { x: ValueRow; e: Timeline['values'][number]['evidence'][number] };

type DecisionRow = { w: MemoryWrite; d: Timeline['decisions'][number] };

type Ref = { source: string; idempotency_key: string; index: number };

/** A claim reference as one string, for matching a list's items by name. */
const refKey = (r: Ref) => JSON.stringify([r.source, r.idempotency_key, r.index]);

const sameRef = (a: Ref, b: Ref) => a.index === b.index && a.idempotency_key === b.idempotency_key && a.source === b.source;

/** Whether a decision row would be written unchanged. */
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

  for (const { write: w, before, base = 0 } of changes) {
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
    const values = w.timeline.values;
    // Searchable text is the predicate and qualifiers with the value: with the same key text on
    // both sides, an unchanged value has an unchanged text.
    const sameKeyText = before.fact_key.predicate === w.timeline.fact_key.predicate && JSON.stringify(before.fact_key.qualifiers) === JSON.stringify(w.timeline.fact_key.qualifiers);
    for (let i = 0; i < Math.max(old.length, values.length); i += 1) {
      const ord = base + i;
      const prior = old[i];
      const v = values[i];
      if (!v) valuesToDelete.push({ memory_id: id, ord });
      else if (!prior || !sameValue(prior, v) || (!sameKeyText && searchText(before, prior.value) !== searchText(w.timeline, v.value))) valuesToWrite.push({ w, v, ord });
      // Past their common prefix, a value's evidence is matched by name against the whole other list.
      const [had, has] = unmatchedTails(prior?.evidence ?? [], v?.evidence ?? [], sameRef);
      if (v && has.length > 0) {
        const hadKeys = new Set((prior?.evidence ?? []).map(refKey));
        for (const e of has) if (!hadKeys.has(refKey(e))) evidenceToWrite.push({ x: { w, v, ord }, e });
      }
      if (had.length > 0) {
        const keep = new Set((v?.evidence ?? []).map(refKey));
        for (const e of had) if (!keep.has(refKey(e))) evidenceToDelete.push({ memory_id: id, ord, source: e.source, idempotency_key: e.idempotency_key, index: e.index });
      }
    }
    // Decisions are named by their claim, once each in a timeline (one per claim folded): past
    // their common prefix, the rest are matched by name.
    const [gone, now] = unmatchedTails(before.decisions, w.timeline.decisions, (a, b) => sameRef(a.claim, b.claim), (a, b) => {
      if (!sameDecision(a, b)) decisionsToWrite.push({ w, d: b });
    });
    const priorDecisions = new Map(gone.map((d) => [refKey(d.claim), d] as const));
    const nowKeys = new Set<string>();
    for (const d of now) {
      const key = refKey(d.claim);
      nowKeys.add(key);
      const prior = priorDecisions.get(key);
      if (!prior || !sameDecision(prior, d)) decisionsToWrite.push({ w, d });
    }
    for (const d of gone) {
      if (!nowKeys.has(refKey(d.claim))) decisionsToDelete.push({ memory_id: id, source: d.claim.source, idempotency_key: d.claim.idempotency_key, index: d.claim.index });
    }
  }

  await deleteRows(sql, workspaceId, 'memory_values', valuesToDelete, [
    ['memory_id', 'text', (d) => d.memory_id],
    ['ord', 'int', (d) => d.ord],
  ]);
  await deleteRows(sql, workspaceId, 'evidence', evidenceToDelete, [
    ['memory_id', 'text', (d) => d.memory_id],
    ['value_ord', 'int', (d) => d.ord],
    ['source', 'text', (d) => d.source],
    ['idempotency_key', 'text', (d) => d.idempotency_key],
    ['claim_index', 'int', (d) => d.index],
  ]);
  await deleteRows(sql, workspaceId, 'claim_decisions', decisionsToDelete, [
    ['memory_id', 'text', (d) => d.memory_id],
    ['source', 'text', (d) => d.source],
    ['idempotency_key', 'text', (d) => d.idempotency_key],
    ['claim_index', 'int', (d) => d.index],
  ]);

  await insertRows(sql, workspaceId, 'memory_values', fresh.values, VALUE_COLUMNS);
  await insertRows(sql, workspaceId, 'memory_values', valuesToWrite, VALUE_COLUMNS, VALUE_UPSERT);
  await insertRows(sql, workspaceId, 'evidence', fresh.evidence, EVIDENCE_COLUMNS);
  await insertRows(sql, workspaceId, 'evidence', evidenceToWrite, EVIDENCE_COLUMNS, 'ON CONFLICT DO NOTHING');
  await insertRows(sql, workspaceId, 'claim_decisions', fresh.decisions, DECISION_COLUMNS);
  await insertRows(sql, workspaceId, 'claim_decisions', decisionsToWrite, DECISION_COLUMNS, DECISION_UPSERT);
}

/** A column of rows sent as one array parameter: its name in the table, its type, its value in a row. */
type Column<R> = readonly [name: string, type: string, of: (row: R) => unknown];

const VALUE_COLUMNS: ReadonlyArray<Column<ValueRow>> = [
  ['memory_id', 'text', (x) => x.w.timeline.memory_id],
  ['ord', 'int', (x) => x.ord],
  ['subject', 'text', (x) => x.w.subject],
  ['scope', 'text', (x) => x.w.timeline.fact_key.scope],
  ['owner', 'text', (x) => x.w.timeline.fact_key.owner],
  ['value', 'jsonb', (x) => JSON.stringify(x.v.value)],
  ['search_text', 'text', (x) => searchText(x.w.timeline, x.v.value)],
  ['valid_from', 'timestamptz', (x) => x.v.valid_from],
  ['valid_to', 'timestamptz', (x) => x.v.valid_to],
  ['status', 'text', (x) => x.v.status],
  ['superseded_by', 'text', (x) => x.v.superseded_by],
  ['conditions', 'jsonb', (x) => JSON.stringify(x.v.conditions)],
  ['standing', 'int', (x) => x.v.standing],
  ['support', 'int', (x) => x.v.support],
];

const EVIDENCE_COLUMNS: ReadonlyArray<Column<EvidenceRow>> = [
  ['memory_id', 'text', (r) => r.x.w.timeline.memory_id],
  ['value_ord', 'int', (r) => r.x.ord],
  ['source', 'text', (r) => r.e.source],
  ['idempotency_key', 'text', (r) => r.e.idempotency_key],
  ['claim_index', 'int', (r) => r.e.index],
  ['lineage', 'text', (r) => r.e.lineage],
  ['source_ref', 'text', (r) => r.e.source_ref],
];

const DECISION_COLUMNS: ReadonlyArray<Column<DecisionRow>> = [
  ['memory_id', 'text', (r) => r.w.timeline.memory_id],
  ['source', 'text', (r) => r.d.claim.source],
  ['idempotency_key', 'text', (r) => r.d.claim.idempotency_key],
  ['claim_index', 'int', (r) => r.d.claim.index],
  ['kind', 'text', (r) => r.d.kind],
  ['target', 'jsonb', (r) => (r.d.target ? JSON.stringify(r.d.target) : null)],
  ['reason', 'text', (r) => r.d.reason],
];

const VALUE_UPSERT = `ON CONFLICT (workspace_id, memory_id, ord) DO UPDATE SET value = EXCLUDED.value, search_text = EXCLUDED.search_text,
  valid_from = EXCLUDED.valid_from, valid_to = EXCLUDED.valid_to, status = EXCLUDED.status,
  superseded_by = EXCLUDED.superseded_by, conditions = EXCLUDED.conditions, standing = EXCLUDED.standing,
  support = EXCLUDED.support`;

const DECISION_UPSERT = `ON CONFLICT (workspace_id, memory_id, source, idempotency_key, claim_index) DO UPDATE SET kind = EXCLUDED.kind,
  target = EXCLUDED.target, reason = EXCLUDED.reason`;

/**
 * The rows' columns as parameters after the workspace ($1), each one JSON array
 * (`rowsFromJsonColumns`), and the rows they make, each column cast to its type. A JSON-valued
 * column's elements are its JSON texts (strings in the array), cast to jsonb from there.
 */
function jsonRows<R>(rows: readonly R[], columns: ReadonlyArray<Column<R>>) {
  const names = columns.map(([name]) => name).join(', ');
  return {
    names,
    rows: `(SELECT ${columns.map(([name, type]) => `u.${name}::${type} AS ${name}`).join(', ')}
              FROM ${rowsFromJsonColumns(2, columns.map(() => 'text'))} AS u(${names}))`,
    params: columns.map(([, , of]) => jsonColumn(rows, of)),
  };
}

/** One statement for all the rows: each column is one parameter, turned back into rows by `jsonRows`. */
async function insertRows<R>(sql: Sql, workspaceId: string, table: string, rows: readonly R[], columns: ReadonlyArray<Column<R>>, onConflict = ''): Promise<void> {
  if (rows.length === 0) return;
  const a = jsonRows(rows, columns);
  await sql.query(`INSERT INTO ${table} (workspace_id, ${a.names}) SELECT $1, * FROM ${a.rows} AS u ${onConflict}`, [workspaceId, ...a.params]);
}

/** Deletes the rows of the table that match one of these on every column named. */
async function deleteRows<R>(sql: Sql, workspaceId: string, table: string, rows: readonly R[], columns: ReadonlyArray<Column<R>>): Promise<void> {
  if (rows.length === 0) return;
  const a = jsonRows(rows, columns);
  const match = columns.map(([name]) => `t.${name} = d.${name}`).join(' AND ');
  await sql.query(`DELETE FROM ${table} t USING ${a.rows} AS d WHERE t.workspace_id = $1 AND ${match}`, [workspaceId, ...a.params]);
}
