import { authorOf, canonicalJson, COMPILER_VERSION, EMPTY_STATE_HASH, NOTE_PREDICATE, combineDigests, updateStateHash, extract, headOf, shownCandidates, Timeline, timelineDigest, timelineEtag, timelineHashes, toldAsChange, documentsOf, type CandidateRef, type Claim, type FoldCheckpoint, type PolicySet } from '@canon/core';
import { episodesOfSubject, getSubject, inSnapshot, memoriesOfSubject, projectionRowsOfSubject, summariesOfSubject, type MemoryRow, type MemoryShapeRow, type PartnerSide, type Pool, type Sql, type StoredDerivations } from '@canon/store';
import { foldMemoryWithCheckpoint } from './compile.js';
import { loadPolicySet } from '../writes/policies.js';
import { candidateListsOf, foldGroup, linksOfEpisodes, parseFactKey, topStandingsOf, type SubjectLinks } from '../links/linked-fold.js';
import { storedSide, storedSummary } from '../recall/recall.js';
import { allUsersOf, enterWorkspace } from '../auth/scope.js';
import { notePersonalDigest, sumsOf } from './seen-by.js';

export interface VerifyDifference {
  subject: string;
  key: string;
  memory_id: string;
  what: string;
  expected: unknown;
  actual: unknown;
}

export interface RecomputeReport {
  subject: string;
  /** The state hash of the memories as stored, recomputed from their rows. */
  stored_state_hash: string;
  /** The state hash of the subject recomputed from the log alone. */
  rebuilt_state_hash: string;
  /** The hash the subject row keeps incrementally. */
  incremental_state_hash: string | null;
  differences: VerifyDifference[];
}

/** The report of a subject with nothing in its log, nothing stored and nothing kept. */
export function unwrittenReport(subject: string): RecomputeReport {
  return { subject, stored_state_hash: EMPTY_STATE_HASH, rebuilt_state_hash: EMPTY_STATE_HASH, incremental_state_hash: EMPTY_STATE_HASH, differences: [] };
}

/**
 * Recomputes a subject from the log in memory (extract + fold, no writes) and compares it with
 * the stored rows: timelines, ETags, value rows and hashes. Read-only, in one snapshot.
 */
export async function recomputeAndCompare(pool: Pool, workspaceId: string, subject: string, viewer?: { user: string | null }): Promise<RecomputeReport> {
  return inSnapshot(pool, async (tx) => {
    await enterWorkspace(tx, allUsersOf(workspaceId));
    return compareInSnapshot(tx, workspaceId, subject, viewer);
  });
}

/** Whether a memory of this fact key is another user's personal one than the viewer's. */
const hiddenFrom = (viewer: { user: string | null } | undefined, key: { scope: string; owner: string | null }) =>
  viewer !== undefined && key.scope === 'personal' && key.owner !== viewer.user;

/** What the candidate search reads of a memory beside its key, as its row keeps it. */
export interface MemoryShapeFacts {
  told_as_change: boolean;
  document_lineages: string[];
}

function shapeFacts(claims: readonly Claim[]): MemoryShapeFacts {
  return { told_as_change: toldAsChange(claims), document_lineages: documentsOf(claims) };
}

/**
 * A subject recomputed from its log alone under a policy set, in memory: extract, links, fold.
 * What verify holds the stored rows to, and what a preview folds under proposed policies.
 */
export async function foldSubjectFromLog(
  sql: Sql,
  workspaceId: string,
  subject: string,
  set: PolicySet,
  /**
   * Filled, when given, with what the candidate search reads of each memory beside its key:
   * whether it was told as a change (`toldAsChange`), and the documents it came from (`documentsOf`).
   */
  facts?: Map<string, MemoryShapeFacts>,
  /** Filled, when given, with where each memory's next fold may resume (none for a linked group). */
  checkpoints?: Map<string, FoldCheckpoint | null>,
  /** Told the links the log states, when given. */
  onLinks?: (links: SubjectLinks) => void,
): Promise<Map<string, Timeline>> {
  const episodes = await episodesOfSubject(sql, workspaceId, subject);
  const claims = episodes.flatMap((e) => extract(e, set));
  const byMemory = new Map<string, Claim[]>();
  for (const c of claims) {
    const list = byMemory.get(c.memory_id);
    if (list) list.push(c);
    else byMemory.set(c.memory_id, [c]);
  }
  const versionsStated = new Map<string, Set<string>>();
  for (const c of claims) {
    const id = JSON.stringify([c.source, c.idempotency_key]);
    versionsStated.set(id, (versionsStated.get(id) ?? new Set()).add(c.key));
  }
  const versions = episodes
    .filter((e) => e.snapshot)
    .map((e) => ({
      lineage: e.lineage,
      source: e.source,
      idempotency_key: e.idempotency_key,
      occurred_at: e.occurred_at,
      sequence: e.sequence,
      snapshot: true,
      ingested_at: e.ingested_at,
      role: e.actor.role,
      author: authorOf(e),
      keys: [...(versionsStated.get(JSON.stringify([e.source, e.idempotency_key])) ?? [])].sort(),
    }));
  const links = linksOfEpisodes(workspaceId, episodes, set, topStandingsOf(byMemory));
  onLinks?.(links);
  const expected = new Map<string, Timeline>();
  for (const [id, cs] of byMemory) {
    const group = links.groupOfId.get(id);
    if (!group) {
      const { timeline, checkpoint } = foldMemoryWithCheckpoint(cs, set, versions);
      expected.set(id, timeline);
      checkpoints?.set(id, checkpoint);
      facts?.set(id, shapeFacts(cs));
    } else if (!expected.has(group.canonicalId)) {
      const t = foldGroup(group, byMemory, set, versions);
      if (t) expected.set(group.canonicalId, t);
      checkpoints?.set(group.canonicalId, null);
      facts?.set(group.canonicalId, shapeFacts(group.ids.flatMap((m) => byMemory.get(m) ?? [])));
    }
  }
  return expected;
}

/**
 * With `viewer`, the report as that key may see it (as a compile's answer, `seenBy`): other users'
 * personal memories are compared like every other, but left out of the three hashes, and their
 * differences are told as one count, without their keys or values.
 */
async function compareInSnapshot(sql: Sql, workspaceId: string, subject: string, viewer?: { user: string | null }): Promise<RecomputeReport> {
  const { set } = await loadPolicySet(sql, workspaceId);
  const factsOf = new Map<string, MemoryShapeFacts>();
  const checkpoints = new Map<string, FoldCheckpoint | null>();
  let links: SubjectLinks | null = null;
  const expected = await foldSubjectFromLog(sql, workspaceId, subject, set, factsOf, checkpoints, (l) => (links = l));

  const rows = await memoriesOfSubject(sql, workspaceId, subject);
  const summaries = await summariesOfSubject(sql, workspaceId, subject);
  const projections = await projectionRowsOfSubject(sql, workspaceId, subject);
  const valuesByMemory = new Map<string, typeof projections.values>();
  for (const v of projections.values) {
    const list = valuesByMemory.get(v.memory_id);
    if (list) list.push(v);
    else valuesByMemory.set(v.memory_id, [v]);
  }

  const evidenceByMemory = projections.evidence;
  const decisionsByMemory = projections.decisions;

  const differences: VerifyDifference[] = [];
  const storedDigests: string[] = [];
  // Memories the viewer may not see, and the digests of those among the stored rows.
  const hidden = new Set<string>();
  const hiddenStored: string[] = [];
  // Every owner's personal digests, as the rows hold them: what the subject row's sums must be.
  const personalStored = new Map<string, string[]>();
  for (const [id, t] of expected) if (hiddenFrom(viewer, t.fact_key)) hidden.add(id);
  const seen = new Set<string>();
  for (const row of rows) {
    seen.add(row.id);
    // A row whose timeline does not parse has no key to tell by: it is hidden if its memory is.
    const key = (row.timeline as Partial<Timeline> | null)?.fact_key;
    if (key && hiddenFrom(viewer, key)) hidden.add(row.id);
    const parsed = Timeline.safeParse(row.timeline);
    const diff = (what: string, e: unknown, a: unknown) => differences.push({ subject, key: row.key, memory_id: row.id, what, expected: e, actual: a });
    if (!parsed.success) {
      diff('timeline is not a valid timeline', 'a timeline', parsed.error.issues[0]?.message);
      continue;
    }
    const actual = parsed.data;
    // Hashed once each: a long timeline's digest is read four times below.
    const actualDigest = timelineDigest(actual);
    const actualEtag = timelineEtag(actual);
    storedDigests.push(actualDigest);
    if (hidden.has(row.id)) hiddenStored.push(actualDigest);
    notePersonalDigest(personalStored, actual.fact_key, actualDigest);
    const want = expected.get(row.id);
    if (!want) {
      diff('memory has no claims in the log', null, actual.values.map((v) => v.value));
      continue;
    }
    if (actualEtag !== row.etag) diff('etag', actualEtag, row.etag);
    // Recall reads the summary, not the timeline: it must say what the timeline says (a row from
    // before summaries existed has none, and recall reads its timeline).
    const stored = summaries.get(row.id);
    const { summary = null, side = null, told_as_change = false, document_lineages = [], checkpoint = null, sealed = null } = stored ?? {};
    // A page shows this memory's candidates from what its row keeps of them: their rows' own (none
    // kept is always sound: recall then reads them by id).
    if (stored && stored.partner_sides !== null) {
      const wantedPartners = partnerSidesOf(stored.candidates, summaries);
      if (canonicalJson(wantedPartners) !== canonicalJson(stored.partner_sides)) diff('partner_sides', wantedPartners, stored.partner_sides);
    }
    // The next compile hashes the head with the sealed blocks' stored hashes, not their items:
    // those hashes must be the items' own, or its ETag and digest would drift from a rebuild's.
    if (sealed !== null) {
      const head = headOf(actual, sealed);
      const fromSealed = timelineHashes(head, sealed, null);
      if (fromSealed.etag !== row.etag || fromSealed.digest() !== actualDigest) diff('sealed blocks', row.etag, fromSealed.etag);
    }
    const facts = factsOf.get(row.id);
    if (told_as_change !== (facts?.told_as_change ?? false)) diff('told_as_change', facts?.told_as_change ?? false, told_as_change);
    if (document_lineages.join('\u0000') !== (facts?.document_lineages ?? []).join('\u0000')) diff('document_lineages', facts?.document_lineages ?? [], document_lineages);
    // The next compile resumes from the checkpoint without reading the key's claims, so a stored
    // one must be the fold's own. None is always sound (the compile folds from all claims): a row
    // written before checkpoints existed, or left as it was since, holds none.
    if (checkpoint !== null && canonicalJson(checkpoint) !== canonicalJson(checkpoints.get(row.id) ?? null)) {
      diff('checkpoint', checkpoints.get(row.id) ?? null, checkpoint);
    }
    if (summary !== null) {
      const wanted = storedSummary(row, actual);
      if (canonicalJson(wanted) !== canonicalJson(summary)) diff('summary', wanted.memory, (summary as { memory?: unknown }).memory ?? summary);
      // A candidate's side on other memories' pages is read from here: it must say what the summary does.
      const wantedSide = storedSide(wanted);
      if (side !== null && canonicalJson(wantedSide) !== canonicalJson(side)) diff('side', wantedSide.memory, (side as { memory?: unknown }).memory ?? side);
    }
    if (timelineDigest(want) !== actualDigest) {
      diff('timeline', want.values.map(brief), actual.values.map(brief));
    }
    const projected = (valuesByMemory.get(row.id) ?? []).map((v) => ({ value: v.value, from: v.valid_from, to: v.valid_to, status: v.status }));
    const fromTimeline = actual.values.map((v) => ({ value: v.value, from: v.valid_from, to: v.valid_to, status: v.status }));
    // Compared as values: the timeline keeps its canonical text (a json column), a row's value is
    // jsonb, which orders an object's members its own way.
    if (canonicalJson(projected) !== canonicalJson(fromTimeline)) diff('memory_values rows', fromTimeline, projected);
    const evidenceWanted = actual.values.flatMap((v, ord) => v.evidence.map((e) => `${ord}|${e.source}|${e.idempotency_key}|${e.index}`));
    const evidenceHeld = evidenceByMemory.get(row.id) ?? [];
    if (!sameSet(evidenceWanted, evidenceHeld)) diff('evidence rows', [...new Set(evidenceWanted)].sort(), [...evidenceHeld].sort());
    const decisionsWanted = actual.decisions.map((d) => `${d.claim.source}|${d.claim.idempotency_key}|${d.claim.index}|${d.kind}`);
    const decisionsHeld = decisionsByMemory.get(row.id) ?? [];
    if (!sameSet(decisionsWanted, decisionsHeld)) diff('decision rows', [...new Set(decisionsWanted)].sort(), [...decisionsHeld].sort());
  }
  for (const [id, t] of expected) {
    if (!seen.has(id)) differences.push({ subject, key: t.key, memory_id: id, what: 'memory missing', expected: t.values.map(brief), actual: null });
  }
  // Candidates are a set function of the memories and the links: each row's list must be what
  // every pair computed gives (a compile only computes the pairs around what it created).
  // Computed from what the log says of each memory (told as a change or not), so a stored flag
  // that drifted is one difference, not one per pair it would change.
  // The shapes come from the rows already read: each key, a note's words (its first value, from
  // the whole timeline), the whole stored list (a row's `candidates` column is cut to the ones shown).
  const shapes: MemoryShapeRow[] = rows.map((row) => ({
    id: row.id,
    key: row.key,
    note_text: noteText(row),
    told_as_change: factsOf.get(row.id)?.told_as_change ?? false,
    document_lineages: factsOf.get(row.id)?.document_lineages ?? [],
    candidates: summaries.get(row.id)?.candidates ?? [],
  }));
  const lists = candidateListsOf(shapes, links!);
  const refs = (list: readonly CandidateRef[]) => list.map((c) => `${c.memory_id} ${c.score}`);
  for (const r of shapes) {
    const want = lists.get(r.id) ?? [];
    if (canonicalJson(want) !== canonicalJson(r.candidates)) differences.push({ subject, key: r.key, memory_id: r.id, what: 'candidates', expected: refs(want), actual: refs(r.candidates) });
  }
  const subjectRow = await getSubject(sql, workspaceId, subject);
  if (subjectRow && subjectRow.compiler_version !== COMPILER_VERSION) {
    differences.push({ subject, key: '', memory_id: '', what: 'compiler version', expected: COMPILER_VERSION, actual: subjectRow.compiler_version });
  }
  // The sums the subject row keeps for each owner's personal memories (what a compile's answer
  // subtracts for other users): told as a count of owners, naming none.
  if (subjectRow && subjectRow.personal_sums !== null) {
    const kept = new Map(Object.entries(subjectRow.personal_sums));
    const summed = sumsOf(personalStored);
    const owners = new Set([...kept.keys(), ...summed.keys()]);
    const off = [...owners].filter((o) => kept.get(o) !== summed.get(o)).length;
    if (off > 0) differences.push({ subject, key: '', memory_id: '', what: "owners whose personal memories' digest sums the subject row keeps wrong", expected: 0, actual: off });
  }
  const shown = differences.filter((d) => !hidden.has(d.memory_id));
  if (shown.length < differences.length) {
    shown.push({ subject, key: '', memory_id: '', what: "differences in memories this key may not see (other users' personal ones)", expected: 0, actual: differences.length - shown.length });
  }
  return {
    subject,
    stored_state_hash: updateStateHash(combineDigests(storedDigests), hiddenStored, []),
    rebuilt_state_hash: combineDigests([...expected].filter(([id]) => !hidden.has(id)).map(([, t]) => timelineDigest(t))),
    // No row: never compiled with anything in it, or erased whole. Compiles keep the empty state's
    // hash for it then (they answer it for a subject with nothing in the log), and a subject that
    // does hold episodes has a row after verify's compiles, so a missing one still differs.
    incremental_state_hash: updateStateHash(subjectRow?.state_hash ?? combineDigests([]), hiddenStored, []),
    differences: shown,
  };
}

/** What a row with these candidates keeps of them (`memories.partner_sides`): null for none. */
function partnerSidesOf(candidates: ReadonlyArray<{ memory_id: string }>, rows: ReadonlyMap<string, StoredDerivations>): Record<string, PartnerSide> | null {
  const out: Record<string, PartnerSide> = {};
  for (const c of shownCandidates(candidates)) {
    const b = rows.get(c.memory_id);
    if (b) out[c.memory_id] = { scope: b.scope, owner: b.owner, side: b.side };
  }
  return Object.keys(out).length === 0 ? null : out;
}

/** A note's words as the candidate search reads them (`memoryShapesOfSubject`): its first value. */
function noteText(row: MemoryRow): string | null {
  if (parseFactKey(row.key).predicate !== NOTE_PREDICATE) return null;
  const first = (row.timeline as { values?: Array<{ value: unknown }> }).values?.[0]?.value;
  if (first === undefined || first === null) return null;
  return typeof first === 'string' ? first : JSON.stringify(first);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function brief(v: Timeline['values'][number]) {
  return { value: v.value, status: v.status, valid_from: v.valid_from, valid_to: v.valid_to };
}
