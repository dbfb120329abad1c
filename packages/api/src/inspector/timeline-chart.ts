import { html, raw } from 'hono/html';
import type { Timeline, TimelineValue } from '@canon/core';
import { day, show, type Html } from './layout.js';

const WIDTH = 720;
const LABEL = 170;
const ROW = 24;
const TOP = 8;
const AXIS = 22;
const DAY_MS = 86_400_000;

const COLOR: Record<TimelineValue['status'], string> = {
  in_force: '#0969da',
  superseded: '#afb8c1',
  overruled: '#ffffff',
  disputed: '#cf222e',
  retracted: '#6e7781',
};

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function describe(v: TimelineValue, conflicted: boolean): string {
  const state =
    v.status === 'superseded'
      ? `superseded by ${v.superseded_by ?? 'change'}`
      : v.status === 'disputed' || (conflicted && v.status === 'in_force')
        ? 'in conflict'
        : v.status.replace('_', ' ');
  return `${show(v.value)}: ${state}, from ${v.valid_from}${v.valid_to ? ` to ${v.valid_to}` : ', open'}`;
}

/**
 * A memory's values over valid time as inline SVG: one row per value, a bar from valid_from to
 * valid_to (open bars run to the right edge), superseded values grey, disputed values red and
 * marked "conflict", overruled values an outline (they never held). The SVG carries a title and
 * a description listing every value, so a screen reader gets the same story as the picture.
 */
export function timelineChart(id: string, timeline: Timeline, at: string, conflicted: boolean): Html {
  const values = timeline.values;
  if (values.length === 0) return html`<p class="muted">No values.</p>`;
  const atMs = Date.parse(at);
  const starts = values.map((v) => Date.parse(v.valid_from));
  // The axis spans the recorded instants (starts and ends), not the viewing instant: a history
  // from 2024 viewed in 2026 keeps its detail; open bars run on to the right edge.
  const marks = [...starts, ...values.flatMap((v) => (v.valid_to ? [Date.parse(v.valid_to)] : []))];
  const lo = Math.min(...marks);
  const span = Math.max(Math.max(...marks) - lo, 7 * DAY_MS);
  const hi = lo + span * 1.25;
  const x = (ms: number) => LABEL + ((ms - lo) / (hi - lo)) * (WIDTH - LABEL - 10);
  const height = TOP + values.length * ROW + AXIS;
  const titleId = `chart-title-${id}`;
  const descId = `chart-desc-${id}`;
  const rows = values.map((v, i) => {
    const y = TOP + i * ROW;
    const x0 = x(starts[i]!);
    const x1 = v.valid_to ? x(Date.parse(v.valid_to)) : WIDTH - 10;
    const w = Math.max(x1 - x0, 3);
    const inConflict = v.status === 'disputed' || (conflicted && v.status === 'in_force');
    const fill = inConflict ? COLOR.disputed : COLOR[v.status];
    const stroke = v.status === 'overruled' ? ' stroke="#6e7781" stroke-dasharray="4 3"' : '';
    const cls = `bar ${v.status}${inConflict ? ' conflict' : ''}`;
    return html`<g class="${cls}" data-value="${show(v.value)}" data-status="${v.status}">
      <text x="0" y="${y + 16}" font-size="12" font-family="ui-monospace, monospace" fill="${v.status === 'superseded' ? '#6e7781' : '#1f2328'}">${clip(show(v.value), 22)}</text>
      <rect x="${x0.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="${ROW - 8}" rx="3" fill="${fill}"${raw(stroke)}><title>${describe(v, conflicted)}</title></rect>
      ${inConflict ? html`<text x="${(x0 + 4).toFixed(1)}" y="${y + 16}" font-size="11" fill="#ffffff" font-weight="600">conflict</text>` : ''}
      ${v.status === 'superseded' ? html`<text x="${(x0 + 4).toFixed(1)}" y="${y + 16}" font-size="11" fill="#1f2328">superseded</text>` : ''}
    </g>`;
  });
  const axisY = TOP + values.length * ROW + 4;
  const atX = x(atMs);
  return html`<svg class="chart" role="img" aria-labelledby="${titleId} ${descId}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">
    <title id="${titleId}">Values of ${timeline.fact_key.predicate} over valid time</title>
    <desc id="${descId}">${values.map((v) => describe(v, conflicted)).join('; ')}</desc>
    ${rows}
    <line x1="${LABEL}" y1="${axisY}" x2="${WIDTH - 10}" y2="${axisY}" stroke="#d1d9e0" />
    <text x="${LABEL}" y="${axisY + 14}" font-size="11" fill="#59636e">${day(new Date(lo).toISOString())}</text>
    <text x="${WIDTH - 10}" y="${axisY + 14}" font-size="11" fill="#59636e" text-anchor="end">${day(new Date(hi).toISOString())}</text>
    ${atX >= LABEL && atX <= WIDTH - 10 ? html`<line x1="${atX.toFixed(1)}" y1="${TOP}" x2="${atX.toFixed(1)}" y2="${axisY}" stroke="#9a6700" stroke-dasharray="2 2"><title>viewed at ${at}</title></line>` : ''}
  </svg>`;
}
