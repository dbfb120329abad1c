import type { ClaimRef, Decision, EvidenceRef, Timeline, TimelineValue } from '@canon/core';
import { episodeSources, memoriesByIds, memoriesPage, type Pool } from '@canon/store';
import { candidateViews, shownCandidateIds, sideOf, type CandidateView } from '../links/candidate-view.js';
import type { Principal } from '../auth/principal.js';
import { parseInstant, summarize, visibleTo, type MemorySummary } from './recall.js';
import { withWorkspace } from '../auth/scope.js';

/** One memory as the inspectors show it: its view at the instant and its whole timeline. */
export interface InspectedMemory {
  id: string;
  subject: string;
  revision: number;
  timeline: Timeline;
  view: MemorySummary;
}

type Ref = { source: string; idempotency_key: string; index: number | null };
const labelOf = (m: InspectedMemory) => ({ memory_id: m.id, predicate: m.timeline.fact_key.predicate, qualifiers: m.timeline.fact_key.qualifiers, scope: m.timeline.fact_key.scope });

export interface MemorySections {
  current: Array<ReturnType<typeof labelOf> & { status: MemorySummary['status']; values: MemorySummary['current']; scheduled: MemorySummary['scheduled'] }>;
  superseded: Array<
    ReturnType<typeof labelOf> & {
      value: unknown;
      valid_from: string;
      /** When it was replaced: the end of its interval (for a correction, when it stopped being believed). */
      replaced_at: string | null;
      how: 'change' | 'correction';
      by: Ref | null;
      by_value: unknown;
      evidence: EvidenceRef[];
    }
  >;
  overruled: Array<ReturnType<typeof labelOf> & { value: unknown; claim: ClaimRef; role: string | null; text: string | null; reason: string }>;
  conflicts: Array<ReturnType<typeof labelOf> & { sides: MemorySummary['conflict'] }>;
  /** Memories that may be one fact worded twice (design §1): shown for someone to link or part. */
  candidates: Array<ReturnType<typeof labelOf> & { values: unknown[]; candidates: CandidateView[] }>;
  decisions: Array<ReturnType<typeof labelOf> & Decision & { text: string | null; source_ref: string | null }>;
}

const sameRef = (e: EvidenceRef, r: Ref) => e.source === r.source && e.idempotency_key === r.idempotency_key && e.index === r.index;

function evidenceOf(t: Timeline, r: Ref): EvidenceRef | null {
  for (const v of t.values) for (const e of v.evidence) if (sameRef(e, r)) return e;
  return null;
}

function valueHolding(t: Timeline, r: Ref): TimelineValue | null {
  return t.values.find((v) => v.evidence.some((e) => sameRef(e, r))) ?? null;
}

/**
 * The sections of `canon inspect` and of a subject's page at /inspect, from the memories alone
 * (pure): what holds now, what was replaced — when and by what —, what was overruled, what is
 * open, and every decision of the fold with its reason.
 */
export function inspectMemories(memories: readonly InspectedMemory[]): MemorySections {
  const out: MemorySections = { current: [], superseded: [], overruled: [], conflicts: [], candidates: [], decisions: [] };
  for (const m of memories) {
    const label = labelOf(m);
    const t = m.timeline;
    if (m.view.candidates.length > 0) out.candidates.push({ ...label, values: m.view.current.map((v) => v.value), candidates: m.view.candidates });
    if (m.view.status === 'conflicted') out.conflicts.push({ ...label, sides: m.view.conflict });
    else if (m.view.current.length > 0 || m.view.scheduled.length > 0) {
      out.current.push({ ...label, status: m.view.status, values: m.view.current, scheduled: m.view.scheduled });
    }
    for (const v of t.values) {
      if (v.status === 'superseded') {
        const by = v.ended_by ? { source: v.ended_by.source, idempotency_key: v.ended_by.idempotency_key, index: v.ended_by.index } : null;
        out.superseded.push({
          ...label,
          value: v.value,
          valid_from: v.valid_from,
          replaced_at: v.valid_to,
          how: v.superseded_by ?? 'change',
          by,
          by_value: by ? (valueHolding(t, by)?.value ?? null) : null,
          evidence: v.evidence,
        });
      }
    }
    for (const d of t.decisions) {
      const e = evidenceOf(t, d.claim);
      if (d.kind === 'overruled') {
        out.overruled.push({ ...label, value: valueHolding(t, d.claim)?.value ?? null, claim: d.claim, role: e?.role ?? null, text: e?.text ?? null, reason: d.reason });
      }
      out.decisions.push({ ...label, ...d, text: e?.text ?? null, source_ref: e?.source_ref ?? null });
    }
  }
  return out;
}

export interface SubjectInspection extends MemorySections {
  subject: string;
  as_of: string;
  sources: Array<{ source: string; episodes: number; first_at: string; last_at: string }>;
  page: { number: number; per_page: number; pages: number; total: number; by_status: Record<string, number> };
  memories: InspectedMemory[];
}

/** The highest page number the inspector reads (50 memories a page: 50 million memories). */
export const MAX_INSPECT_PAGE = 1_000_000;

export interface InspectOptions {
  page?: number;
  perPage?: number;
  asOf?: string | undefined;
}

/**
 * One page of a subject for the web inspector: the memories the key may see, `perPage` at a
 * time in key order (a subject of 10,000 memories reads 50 rows, not 10,000), their sections,
 * and the episode count per source.
 */
export async function inspectSubject(pool: Pool, principal: Principal, subject: string, options: InspectOptions = {}): Promise<SubjectInspection> {
  const at = parseInstant('as_of', options.asOf, new Date().toISOString());
  const perPage = Math.min(Math.max(options.perPage ?? 50, 1), 500);
  // A page past a subject's end reads nothing; one past what an offset holds (page 1e20) reached the
  // SQL as "5e+21" and answered 500. Pages beyond the millionth read as the millionth.
  const asked = Math.floor(options.page ?? 1);
  const number = Number.isFinite(asked) ? Math.min(Math.max(asked, 1), MAX_INSPECT_PAGE) : 1;
  const { page, sources, others } = await withWorkspace(pool, principal, async (tx) => {
    const page = await memoriesPage(tx, { workspaceId: principal.workspace_id, subject, user: principal.user, offset: (number - 1) * perPage, limit: perPage });
    // The candidates of a page's memories may sit on another page: read them by id.
    const others = await memoriesByIds(tx, principal.workspace_id, shownCandidateIds(page.rows));
    return { page, others, sources: await episodeSources(tx, principal.workspace_id, subject, principal.user) };
  });
  const sides = new Map([...others.values()].filter((o) => visibleTo(principal, o.timeline)).map((o) => [o.id, sideOf(o.timeline, at)] as const));
  const memories = page.rows.map((r) => ({
    id: r.id,
    subject: r.subject,
    revision: r.revision,
    timeline: r.timeline,
    view: summarize(r, r.timeline, at, candidateViews(sideOf(r.timeline, at), r.candidates, sides)),
  }));
  return {
    subject,
    as_of: at,
    sources,
    page: { number, per_page: perPage, pages: Math.max(1, Math.ceil(page.total / perPage)), total: page.total, by_status: page.by_status },
    memories,
    ...inspectMemories(memories),
  };
}
