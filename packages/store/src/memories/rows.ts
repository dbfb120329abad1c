import { CANDIDATES_SHOWN, type FoldCheckpoint, type NewBlock, type Sealed, type Timeline } from '@canon/core';
import type { CandidateRefRow } from '../candidates/rows.js';

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
  /**
   * Read only by a compile (`memoriesByIds` with `checkpoint`): where its fold may resume, and
   * whether a claim it folded was told as a change (a resumed fold sees only the new claims).
   */
  checkpoint?: FoldCheckpoint | null;
  told_as_change?: boolean;
  /** Read only by a compile, as `told_as_change`: see `memories.document_lineages`. */
  document_lineages?: string[];
  /**
   * Read only by a compile (`memoriesByIds` with `checkpoint`), which reads the head: the blocks
   * of the timeline kept in `memory_blocks`, whose items `timeline` then does not hold. Null or
   * absent: `timeline` is whole.
   */
  sealed?: Sealed | null;
  /**
   * Read only by a compile (`memoriesByIds` with `checkpoint`): the side the row holds, so that
   * only a side that changes is copied to the rows naming the memory (`partner_sides`).
   */
  side?: unknown;
}

/** A timeline's sealed items of one kind, in order, as a jsonb array (empty when none). */
const sealedItems = (kind: 'values' | 'decisions') =>
  `COALESCE((SELECT jsonb_agg(x.item ORDER BY b.n, x.o) FROM memory_blocks b
     CROSS JOIN LATERAL jsonb_array_elements(b.items::jsonb) WITH ORDINALITY AS x(item, o)
     WHERE b.workspace_id = memories.workspace_id AND b.memory_id = memories.id AND b.kind = '${kind}'), '[]'::jsonb)`;

/**
 * The values of a timeline (a jsonb array of the whole timeline's values, sealed ones first), each
 * that `sealed.evidence` names with the evidence kept in its own blocks (`evidence:<its place>`)
 * put back before its own; the others are not looked up.
 */
const withSealedEvidence = (values: string) =>
  `CASE WHEN memories.sealed::jsonb ? 'evidence' THEN
     (SELECT COALESCE(jsonb_agg(CASE WHEN e.items IS NULL THEN v.item ELSE jsonb_set(v.item, '{evidence}', e.items || (v.item -> 'evidence')) END ORDER BY v.o), '[]'::jsonb)
        FROM jsonb_array_elements(${values}) WITH ORDINALITY AS v(item, o)
        LEFT JOIN LATERAL (SELECT jsonb_agg(x.item ORDER BY b.n, x.o) AS items FROM memory_blocks b
                             CROSS JOIN LATERAL jsonb_array_elements(b.items::jsonb) WITH ORDINALITY AS x(item, o)
                            WHERE (v.o - 1) IN (SELECT (s->>'at')::bigint FROM jsonb_array_elements(memories.sealed::jsonb -> 'evidence') AS s)
                              AND b.workspace_id = memories.workspace_id AND b.memory_id = memories.id AND b.kind = 'evidence:' || (v.o - 1)) e ON true)
   ELSE ${values} END`;

/**
 * A memory's whole timeline: its row's, or, where blocks of it are kept apart (`sealed`), those
 * blocks' items followed by the head's, and each value's sealed evidence before its own. For every
 * reader but a compile, which reads the head.
 */
export const TIMELINE = `CASE WHEN memories.sealed IS NULL THEN memories.timeline
  ELSE (memories.timeline::jsonb || jsonb_build_object(
    'values', ${withSealedEvidence(`${sealedItems('values')} || (memories.timeline::jsonb -> 'values')`)},
    'decisions', ${sealedItems('decisions')} || (memories.timeline::jsonb -> 'decisions')))::json END AS timeline`;

/**
 * The candidates a reader is shown, as the row's column: the first `CANDIDATES_SHOWN` of its list.
 * The whole list is the compile's (`memoryShapesOfSubject`); a row of 500 keys worded alike keeps
 * 499, and a page or a memory's detail reads the 20 it shows.
 */
const SHOWN_CANDIDATES = `CASE WHEN jsonb_array_length(memories.candidates) > ${CANDIDATES_SHOWN}
  THEN jsonb_path_query_array(memories.candidates, '$[0 to ${CANDIDATES_SHOWN - 1}]') ELSE memories.candidates END AS candidates`;

const ROW = (timeline: string) => `id, subject, key, revision, etag, digest, status, ${timeline}, ${SHOWN_CANDIDATES}`;

export const COLUMNS = ROW(TIMELINE);

/** A compile's read: the head as the row keeps it, and what resumes its fold. */
export const HEAD_COLUMNS = `${ROW('timeline')}, checkpoint, told_as_change, document_lineages, sealed, side`;

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
  /** Its candidates' scopes, owners and sides by id (see `memories.partner_sides`); null when none are kept. */
  partner_sides?: Record<string, PartnerSide> | null;
}

/** What a row keeps of one of its candidates: who may see it, and its side (null on an older row). */
export interface PartnerSide {
  scope: 'workspace' | 'personal';
  owner: string | null;
  side: unknown;
}

/** A memory named as a candidate by a page it is not on: who may see it, and its side. */
export type CandidateSideRow = Pick<MemoryRecallRow, 'id' | 'scope' | 'owner' | 'summary'>;

export const RECALL_COLUMNS = `id, subject, key, scope, owner, etag, summary, ${SHOWN_CANDIDATES}, partner_sides`;

export interface MemoryWrite {
  timeline: Timeline;
  /** The timeline as JSON, when the caller has it already: stored as this text (a `json` column). */
  json?: string;
  subject: string;
  etag: string;
  digest: string;
  /** What recall reads instead of the timeline (see `memories.summary`). */
  summary: unknown;
  /** What a page shows of this memory as another's candidate (see `memories.side`). */
  side: unknown;
  /** See `memories.told_as_change`. */
  told_as_change: boolean;
  /** See `memories.document_lineages`. */
  document_lineages: string[];
  /** See `memories.checkpoint`; null where the fold cannot resume. */
  checkpoint: FoldCheckpoint | null;
  /** See `memories.sealed`: `json` is then the head, past these blocks. Absent: none. */
  sealed?: Sealed | null;
  /** Blocks to add to the ones the row has (`timelineHashes`). */
  blocks?: readonly NewBlock[];
  /** The row's stored blocks are dropped before `blocks` are added (a fold from all claims). */
  replaceBlocks?: boolean;
}

/** The members of a `jsonRows` row, as `json_to_recordset` reads them: one pass over the text. */
export const MEMORY_RECORD =
  'n int, id text, subject text, key text, scope text, owner text, predicate text, qualifiers jsonb, revision int, etag text, digest text, status text, summary json, side jsonb, told_as_change boolean, document_lineages text[], checkpoint json, sealed json';

/**
 * Memory rows as one JSON array, and their timelines as parameters of their own (`$first`, …)
 * joined to them by `n` through `timelineValues`. A timeline inside the array cost PostgreSQL a
 * second parse of its text in `json_to_recordset` — about 200 ms for the 6 MB timeline of a key
 * restated 10,000 times, ten times what checking it as a parameter costs.
 */
export function jsonRows(
  rows: ReadonlyArray<{ w: MemoryWrite; expected?: { revision: number; etag: string } }>,
): { json: string; timelines: string[] } {
  const timelines: string[] = [];
  const json = `[${rows
    .map(({ w, expected }, n) => {
      const t = w.timeline;
      timelines.push(w.json ?? JSON.stringify(t));
      const head = JSON.stringify({
        n,
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
        told_as_change: w.told_as_change,
        document_lineages: w.document_lineages,
        ...(expected ? { expected_revision: expected.revision, expected_etag: expected.etag } : {}),
      });
      return `${head.slice(0, -1)},"checkpoint":${JSON.stringify(w.checkpoint)},"sealed":${JSON.stringify(w.sealed ?? null)}}`;
    })
    .join(',')}]`;
  return { json, timelines };
}

/** `(VALUES (0, $first::json), (1, $first+1::json), …) AS t(n, timeline)` for `count` timelines. */
export function timelineValues(first: number, count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `(${i}, $${first + i}::json)`);
  return `(VALUES ${rows.join(', ')}) AS t(n, timeline)`;
}
