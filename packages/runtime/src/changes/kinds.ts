import { canonicalJson, view, type Timeline, type ViewStatus } from '@canon/core';

/**
 * How a memory reads after a change against before, at one instant: the vocabulary a preview
 * (what a change would do) and the change feed (what a compile did) share. `history` is a change
 * of an earlier value, interval or piece of evidence with the same view now; `erased` is a
 * change an erasure made, whose before may not be told.
 */
export type ChangeKind = 'added' | 'removed' | 'dispute_opened' | 'dispute_closed' | 'value' | 'status' | 'history' | 'erased';

export interface ChangeSide {
  status: ViewStatus;
  /** The values holding at the instant (every side, when disputed). */
  values: unknown[];
}

export function sideAt(t: Timeline, at: string): ChangeSide {
  const v = view(t, at);
  return { status: v.status, values: (v.status === 'conflicted' ? v.conflict : v.current).map((x) => x.value) };
}

/** The kind of a change between two sides of one memory that differ in their timelines. */
export function classifySides(before: ChangeSide | null, after: ChangeSide | null): Exclude<ChangeKind, 'erased'> {
  if (!before) return 'added';
  if (!after) return 'removed';
  if (before.status !== 'conflicted' && after.status === 'conflicted') return 'dispute_opened';
  if (before.status === 'conflicted' && after.status !== 'conflicted') return 'dispute_closed';
  if (canonicalJson(before.values) !== canonicalJson(after.values)) return 'value';
  if (before.status !== after.status) return 'status';
  return 'history';
}
