import type { Timeline, TimelineValue } from './timeline.js';
import { compareInstants } from './order.js';

/**
 * What a memory is at one instant (design §4: "current", "scheduled" and tombstoned are views):
 * - `current`: one value (or, for `many` keys, the members) holds at the instant;
 * - `conflicted`: two or more different values hold at once (an open disagreement): recall shows
 *   every side with its sources and `needs_verification`;
 * - `tombstoned`: something held before and nothing holds now (retracted or dropped);
 * - `scheduled_only`: nothing holds yet, but a value starts later;
 * - `empty`: nothing ever holds (only overruled claims, or an instant before any value).
 */
export type ViewStatus = 'current' | 'conflicted' | 'tombstoned' | 'scheduled_only' | 'empty';

export interface ScheduledValue {
  value: TimelineValue['value'];
  effective_from: string;
  conditions: string[];
  evidence: TimelineValue['evidence'];
}

export interface MemoryView {
  memory_id: string;
  key: string;
  at: string;
  status: ViewStatus;
  /** Values holding at the instant; several only when conflicted or for `many` keys. */
  current: TimelineValue[];
  /** Values that start after the instant, earliest first: "Thursday from 2024-05-13". */
  scheduled: ScheduledValue[];
  /** Every side of the disagreement at the instant (empty unless conflicted). */
  conflict: TimelineValue[];
  needs_verification: boolean;
  revision: number;
}

/** A value that ever held: overruled values never did, corrected ones were wrong all along. */
function everHeld(v: TimelineValue): boolean {
  return v.status !== 'overruled' && v.superseded_by !== 'correction' && (v.valid_to === null || compareInstants(v.valid_from, v.valid_to) < 0);
}

function holdsAt(v: TimelineValue, at: string): boolean {
  return compareInstants(v.valid_from, at) <= 0 && (v.valid_to === null || compareInstants(at, v.valid_to) < 0);
}

/** The timeline seen at `instant` (an ISO time: now for recall, or `as_of`). Pure; no clock. */
export function view(timeline: Timeline, instant: string): MemoryView {
  const held = timeline.values.filter(everHeld);
  const current = held.filter((v) => holdsAt(v, instant));
  const scheduled = held
    .filter((v) => compareInstants(instant, v.valid_from) < 0)
    .sort((a, b) => compareInstants(a.valid_from, b.valid_from))
    .map((v) => ({ value: v.value, effective_from: v.valid_from, conditions: v.conditions, evidence: v.evidence }));
  const conflicted = timeline.policy.cardinality === 'one' && current.length > 1;
  const endedBefore = held.some((v) => v.valid_to !== null && compareInstants(v.valid_to, instant) <= 0);
  const status: ViewStatus = conflicted
    ? 'conflicted'
    : current.length > 0
      ? 'current'
      : endedBefore
        ? 'tombstoned'
        : scheduled.length > 0
          ? 'scheduled_only'
          : 'empty';
  return {
    memory_id: timeline.memory_id,
    key: timeline.key,
    at: new Date(instant).toISOString(),
    status,
    current,
    scheduled,
    conflict: conflicted ? current : [],
    needs_verification: conflicted,
    revision: timeline.revision,
  };
}

/**
 * The instant from which a timeline's view stops changing: its latest boundary, a value's start
 * or end. `view` compares the instant with nothing else, so every instant at or after it sees the
 * same view: recall can compute that view once, when the timeline is written, and read it without
 * the timeline. Null when the timeline holds no values (every instant sees the same, empty view).
 */
export function viewSettlesAt(timeline: Timeline): string | null {
  let last: string | null = null;
  for (const v of timeline.values) {
    if (last === null || compareInstants(last, v.valid_from) < 0) last = v.valid_from;
    if (v.valid_to !== null && compareInstants(last, v.valid_to) < 0) last = v.valid_to;
  }
  return last;
}
