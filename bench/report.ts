import type { Distribution, Target } from './harness.js';

export interface Series {
  name: string;
  color: string;
  points: Array<{ x: number; y: number }>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A line chart as a plain SVG string: x on a log scale (history size), y linear from zero,
 * an optional dashed target line. No library: the numbers are few and the file is the report.
 */
export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[], targetY?: { y: number; label: string }): string {
  const W = 640;
  const H = 360;
  const m = { l: 70, r: 170, t: 40, b: 50 };
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const x0 = Math.log10(Math.min(...xs));
  const x1 = Math.log10(Math.max(...xs));
  const yMax = Math.max(...ys, targetY?.y ?? 0) * 1.2 || 1;
  const px = (x: number) => m.l + ((Math.log10(x) - x0) / Math.max(1e-9, x1 - x0)) * (W - m.l - m.r);
  const py = (y: number) => H - m.b - (y / yMax) * (H - m.t - m.b);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2 - m.r / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${esc(title)}</text>`,
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="#333"/>`,
    `<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="#333"/>`,
  ];
  for (let i = 0; i <= 4; i += 1) {
    const y = (yMax / 4) * i;
    out.push(`<line x1="${m.l}" y1="${py(y)}" x2="${W - m.r}" y2="${py(y)}" stroke="#eee"/>`);
    out.push(`<text x="${m.l - 8}" y="${py(y) + 4}" text-anchor="end">${y < 10 ? y.toFixed(1) : Math.round(y)}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${px(x)}" y1="${H - m.b}" x2="${px(x)}" y2="${H - m.b + 5}" stroke="#333"/>`);
    out.push(`<text x="${px(x)}" y="${H - m.b + 18}" text-anchor="middle">${x >= 1000 ? `${x / 1000}k` : x}</text>`);
  }
  out.push(`<text x="${(m.l + W - m.r) / 2}" y="${H - 10}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text x="16" y="${(m.t + H - m.b) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(m.t + H - m.b) / 2})">${esc(yLabel)}</text>`);
  if (targetY) {
    out.push(`<line x1="${m.l}" y1="${py(targetY.y)}" x2="${W - m.r}" y2="${py(targetY.y)}" stroke="#c0392b" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${W - m.r + 6}" y="${py(targetY.y) + 4}" fill="#c0392b">${esc(targetY.label)}</text>`);
  }
  series.forEach((s, i) => {
    const pts = s.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const p of s.points) {
      out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3.5" fill="${s.color}"/>`);
      out.push(`<text x="${px(p.x).toFixed(1)}" y="${(py(p.y) - 8).toFixed(1)}" text-anchor="middle" fill="${s.color}" font-size="11">${p.y}</text>`);
    }
    out.push(`<rect x="${W - m.r + 6}" y="${m.t + 10 + i * 20}" width="12" height="3" fill="${s.color}"/>`);
    out.push(`<text x="${W - m.r + 22}" y="${m.t + 15 + i * 20}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

export const fmtDist = (d: Distribution | string | undefined) => (d === undefined ? 'not run' : typeof d === 'string' ? d : `${d.median_ms} / ${d.p95_ms}`);

export function targetTable(targets: readonly Target[]): string[] {
  return [
    '| target | goal | measured | met | missed by |',
    '|---|---|---:|:---:|---|',
    ...targets.map((t) => `| ${t.metric} | ${t.goal} | ${t.measured ?? 'not measured'} | ${t.met === null ? '—' : t.met ? 'yes' : '**no**'} | ${t.missed_by ?? ''} |`),
  ];
}
