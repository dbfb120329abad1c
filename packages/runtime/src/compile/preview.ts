import { aRole, atLeast, COMPILER_VERSION, ForbiddenError, policyFingerprint, timelineDigest, parseInput, type Timeline } from '@canon/core';
import { inSnapshot, memoriesOfSubject, subjectsOfWorkspace, type Pool } from '@canon/store';
import { effectivePolicySet, loadPolicySet, WorkspacePolicies } from '../writes/policies.js';
import { changedPredicates, reachesEverything, subjectsAffected } from '../writes/policy-change.js';
import type { Principal } from '../auth/principal.js';
import { visibleTo } from '../recall/recall.js';
import { allUsersOf, enterWorkspace } from '../auth/scope.js';
import { classifySides, sideAt as side, type ChangeKind, type ChangeSide } from '../changes/kinds.js';
import { foldSubjectFromLog } from './verify.js';

/** How one memory would read after the change, against how it reads now (at the same instant). */
export type PreviewChangeKind = Exclude<ChangeKind, 'erased'>;

export type PreviewSide = ChangeSide;

export interface PreviewChange {
  subject: string;
  memory_id: string;
  key: string;
  predicate: string;
  change: PreviewChangeKind;
  before: PreviewSide | null;
  after: PreviewSide | null;
}

export interface PreviewResult {
  /** The instant both sides are viewed at (now). */
  as_of: string;
  compiler_version: string;
  fingerprint: { now: string; proposed: string };
  /** Subjects folded that the key may see: those the proposed policies can affect (every subject without a proposal). */
  subjects: number;
  /** Memories that would change; `changes` lists at most `PREVIEW_LIST` of them. */
  changed: number;
  changes: PreviewChange[];
  truncated: boolean;
}

export const PREVIEW_LIST = 1000;

function classify(before: Timeline | undefined, after: Timeline | undefined, at: string): PreviewChangeKind | null {
  if (before && after && timelineDigest(before) === timelineDigest(after)) return null;
  return classifySides(before ? side(before, at) : null, after ? side(after, at) : null);
}

/**
 * What compiling would change, without writing anything (issue "what only an event log can
 * do"): the affected subjects folded from the log alone — under proposed policies, or under
 * this build's compiler after an upgrade — against the memories stored now, in one snapshot (a
 * compile running meanwhile changes neither side). Only what the key may see is reported.
 */
export async function previewChange(pool: Pool, principal: Principal, input: { policies?: unknown } = {}): Promise<PreviewResult> {
  if (!atLeast(principal.role, 'maintainer')) throw new ForbiddenError(`only an owner or a maintainer may preview a change, not ${aRole(principal.role)}`);
  let proposedOwn: WorkspacePolicies | null = null;
  if (input.policies !== undefined) {
    proposedOwn = parseInput(WorkspacePolicies, input.policies, 'policies', 'policies');
  }
  const at = new Date().toISOString();
  const ws = principal.workspace_id;
  return inSnapshot(pool, async (tx) => {
    await enterWorkspace(tx, allUsersOf(ws));
    const now = await loadPolicySet(tx, ws);
    const proposed = proposedOwn === null ? now.set : effectivePolicySet(proposedOwn);
    // Without a proposal, every subject: the question is what this build's compiler would change.
    const subjects = proposedOwn === null ? await subjectsOfWorkspace(tx, ws) : await subjectsAffected(tx, ws, now.set, proposed);
    // The predicates the proposal reaches (null: every one). A subject is counted for a memory the
    // key may see of one of them: folded for another user's personal memory alone, the count said
    // whether anyone's private memories used a predicate.
    const reached = proposedOwn === null || reachesEverything(now.set, proposed) ? null : new Set(changedPredicates(now.set, proposed));
    const changes: PreviewChange[] = [];
    const seen = new Set<string>();
    let changed = 0;
    for (const subject of subjects) {
      const after = await foldSubjectFromLog(tx, ws, subject, proposed);
      const before = new Map((await memoriesOfSubject(tx, ws, subject)).map((r) => [r.id, r.timeline] as const));
      for (const id of [...new Set([...before.keys(), ...after.keys()])].sort()) {
        const b = before.get(id);
        const a = after.get(id);
        const t = (a ?? b)!;
        if (!visibleTo(principal, t)) continue;
        if (reached === null || reached.has(t.fact_key.predicate)) seen.add(subject);
        const change = classify(b, a, at);
        if (change === null) continue;
        changed += 1;
        if (changes.length < PREVIEW_LIST) {
          changes.push({ subject, memory_id: id, key: t.key, predicate: t.fact_key.predicate, change, before: b ? side(b, at) : null, after: a ? side(a, at) : null });
        }
      }
    }
    return {
      as_of: at,
      compiler_version: COMPILER_VERSION,
      fingerprint: { now: now.fingerprint, proposed: policyFingerprint(proposed) },
      // Another user's personal subject is not counted: its existence is theirs.
      subjects: seen.size,
      changed,
      changes,
      truncated: changed > changes.length,
    };
  });
}
