import {
  canonicalJson,
  keptCandidateLists,
  fold,
  FactKey,
  linkMinStanding,
  linkOf,
  linkState,
  memoryId,
  onCanonicalKey,
  pairId,
  parseFactKey,
  policyFor,
  type CandidateRef,
  type Claim,
  type Episode,
  type LineageVersion,
  type LinkState,
  type LinkStatement,
  type PolicySet,
  type Timeline,
} from '@canon/core';
import { linkEpisodesOfSubject, memoryShapesOfSubject, setCandidates, topStandingsOfMemories, type MemoryShapeRow, type Sql } from '@canon/store';

/** A group of fact keys that links made one memory. */
export interface LinkedGroup {
  canonicalId: string;
  canonicalKey: FactKey;
  /** Every key string of the group, sorted; the canonical one first. */
  keys: string[];
  /** The memory id of each key of the group. */
  ids: string[];
}

/** The links of a subject as a compile needs them: groups by memory id, and every id named. */
export interface SubjectLinks {
  state: LinkState;
  groupOfId: Map<string, LinkedGroup>;
  /** Memory id of every key any link statement names (the keys whose grouping may change). */
  namedIds: Set<string>;
  keyOfId: Map<string, string>;
}

/**
 * `topStandings`: the highest standing among each memory's claims, for every key a statement names
 * (`topStandingsOf`, or `topStandingsOfMemories` from the table): a link below it is a proposal.
 */
export function subjectLinksOf(workspaceId: string, statements: readonly LinkStatement[], policies: PolicySet, topStandings: ReadonlyMap<string, number>): SubjectLinks {
  const state = linkState(statements, linkMinStanding(policies), (k) => topStandings.get(memoryId(workspaceId, k)) ?? 0);
  const idOf = (k: string) => memoryId(workspaceId, state.keys.get(k)!);
  const groupOfId = new Map<string, LinkedGroup>();
  for (const [canonical, keys] of state.groups) {
    const canonicalKey = state.keys.get(canonical)!;
    const group: LinkedGroup = { canonicalId: memoryId(workspaceId, canonicalKey), canonicalKey, keys, ids: keys.map(idOf) };
    for (const id of group.ids) groupOfId.set(id, group);
  }
  const keyOfId = new Map([...state.keys.keys()].map((k) => [idOf(k), k] as const));
  return { state, groupOfId, namedIds: new Set(keyOfId.keys()), keyOfId };
}

export function linksOfEpisodes(workspaceId: string, episodes: readonly Episode[], policies: PolicySet, topStandings: ReadonlyMap<string, number>): SubjectLinks {
  return subjectLinksOf(workspaceId, linkStatements(episodes), policies, topStandings);
}

const linkStatements = (episodes: readonly Episode[]) => episodes.map(linkOf).filter((l): l is LinkStatement => l !== null);

/** The highest standing among each memory's claims, from claims in hand. */
export function topStandingsOf(byMemory: Iterable<readonly [string, readonly Pick<Claim, 'standing'>[]]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, claims] of byMemory) for (const c of claims) if (c.standing > (out.get(id) ?? -Infinity)) out.set(id, c.standing);
  return out;
}

/** The links stated in a subject's log, read inside the compile's transaction. */
export async function loadSubjectLinks(sql: Sql, workspaceId: string, subject: string, policies: PolicySet): Promise<SubjectLinks> {
  const statements = linkStatements(await linkEpisodesOfSubject(sql, workspaceId, subject));
  const named = [...new Set(statements.flatMap((s) => [memoryId(workspaceId, s.a_key), memoryId(workspaceId, s.b_key)]))];
  return subjectLinksOf(workspaceId, statements, policies, await topStandingsOfMemories(sql, workspaceId, named));
}

/**
 * Folds a linked group as one memory: the claims of all its keys (and the lineage versions that
 * stated them) restated on the canonical key, the canonical key's policy, and the other keys
 * named in `linked`.
 */
export function foldGroup(group: LinkedGroup, claimsByMemory: ReadonlyMap<string, readonly Claim[]>, policies: PolicySet, versions: readonly LineageVersion[]): Timeline | null {
  const all = group.ids.flatMap((id) => claimsByMemory.get(id) ?? []);
  if (all.length === 0) return null;
  const restated = onCanonicalKey(all, versions, group.canonicalKey, group.keys);
  const lineages = new Set(restated.claims.map((c) => c.lineage));
  const timeline = fold(
    restated.claims,
    policyFor(policies, group.canonicalKey.predicate),
    restated.versions.filter((v) => lineages.has(v.lineage)),
    group.canonicalKey,
  );
  return { ...timeline, linked: group.keys.slice(1) };
}

export { parseFactKey };

/**
 * The candidate list each memory of a subject keeps (`keptCandidateLists`), with the proposals
 * of links below the standing links need shown on the pairs they name: from the rows as they
 * stand and what they kept, around `focus` (the memories created, or whose shape changed); every
 * pair without one. A set function of the memories and the links, so verify holds the stored
 * lists to it, computed from every pair.
 */
export function candidateListsOf(rows: readonly MemoryShapeRow[], links: SubjectLinks, focus?: readonly string[]): Map<string, CandidateRef[]> {
  const keyOf = new Map(rows.map((r) => [r.id, r.key] as const));
  const byMemory = keptCandidateLists(
    rows.map((r) => ({ memory_id: r.id, fact_key: parseFactKey(r.key), note_text: r.note_text, told_as_change: r.told_as_change, document_lineages: r.document_lineages })),
    new Map(rows.map((r) => [r.id, r.candidates as CandidateRef[]] as const)),
    focus ? new Set(focus) : undefined,
    (a, b) => links.state.distinct.has(pairId(keyOf.get(a)!, keyOf.get(b)!)),
  );
  // A link below the standing links need is a proposal: shown on the pair it names.
  const idOfKey = new Map(rows.map((r) => [r.key, r.id] as const));
  for (const s of links.state.proposed) {
    const a = idOfKey.get(s.a);
    const b = idOfKey.get(s.b);
    if (!a || !b) continue;
    const proposal = { same: s.same, source: s.source, idempotency_key: s.idempotency_key, reason: s.reason };
    for (const [from, to] of [[a, b], [b, a]] as const) {
      const list = byMemory.get(from) ?? [];
      const at = list.findIndex((r) => r.memory_id === to);
      if (at >= 0) list[at] = { ...list[at]!, proposed: proposal };
      else list.push({ memory_id: to, score: 0, reason: 'a link was proposed', proposed: proposal });
      byMemory.set(from, list);
    }
  }
  return byMemory;
}

/**
 * Recomputes the candidates of a subject from its memories as they now stand (`candidateListsOf`)
 * and writes the rows whose list changed (their ids are returned). A rebuild and any sequence of
 * compiles write the same lists.
 */
export async function refreshCandidates(
  sql: Sql,
  workspaceId: string,
  subject: string,
  links: SubjectLinks,
  /**
   * The memories this compile created or whose shape changed (told as a change now), and those it
   * removed (incremental when none was removed); absent: recompute every pair.
   */
  change?: { focus: readonly string[]; removed: readonly string[] },
): Promise<string[]> {
  const rows = await memoryShapesOfSubject(sql, workspaceId, subject);
  // Incremental only when none was removed. A removed memory (keys merged
  // by a link, which is rare) may have been what kept a change's loose pairs out — its nearer
  // fact, or one loose pair too many — and its shape is gone with its row: every pair is
  // recomputed then, as a rebuild would.
  const incremental = change && change.removed.length === 0 ? change : undefined;
  const byMemory = candidateListsOf(rows, links, incremental?.focus);
  const changes: Array<{ id: string; candidates: CandidateRef[] }> = [];
  for (const r of rows) {
    const next = byMemory.get(r.id) ?? [];
    if (canonicalJson(next) !== canonicalJson(r.candidates)) changes.push({ id: r.id, candidates: next });
  }
  await setCandidates(sql, workspaceId, changes);
  return changes.map((c) => c.id);
}
