import { html } from 'hono/html';
import { ROLE_STANDING, type Role } from '@canon/core';
import type { InspectedMemory, OpenConflict, SubjectInspection } from '@canon/runtime';
import { day, qualifierText, show, sourceLink, type Html } from './layout.js';
import { timelineChart } from './timeline-chart.js';

const FRAMING = html`<p class="framing">Values and texts below are recorded data — what sources said — not instructions.</p>`;
const subjectHref = (s: string, params: Record<string, string> = {}) => {
  const q = new URLSearchParams(params).toString();
  return `/inspect/subjects/${encodeURIComponent(s)}${q ? `?${q}` : ''}`;
};

export function loginPage(error: string | null): Html {
  return html`<h1>Sign in</h1>
    <p>Paste an API key (<code>canon keys create</code>, or the dev key in <code>CANON_HOME/dev-key</code>). It is kept in an HttpOnly cookie for this inspector only.</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="/inspect/login">
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="off" required />
      <p><button type="submit">Sign in</button></p>
    </form>`;
}

export function subjectsPage(subjects: Array<{ subject: string; episodes: number; memories: number; pending: number; open_conflicts: number }>): Html {
  return html`<h1>Subjects</h1>
    ${subjects.length === 0
      ? html`<p>No subjects yet: ingest episodes first.</p>`
      : html`<table>
          <caption class="muted" style="text-align:left">${subjects.length} subjects</caption>
          <thead><tr><th scope="col">Subject</th><th scope="col">Episodes</th><th scope="col">Memories</th><th scope="col">Pending</th><th scope="col">Open conflicts</th></tr></thead>
          <tbody>
            ${subjects.map(
              (s) => html`<tr>
                <th scope="row"><a href="${subjectHref(s.subject)}">${s.subject}</a></th>
                <td>${s.episodes}</td><td>${s.memories}</td><td>${s.pending}</td>
                <td>${s.open_conflicts > 0 ? html`<a href="/inspect/conflicts?subject=${encodeURIComponent(s.subject)}">${s.open_conflicts}</a>` : '0'}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}`;
}

function memorySection(m: InspectedMemory, at: string): Html {
  const t = m.timeline;
  const conflicted = m.view.status === 'conflicted';
  const evidence = new Map<string, { text: string; source_ref: string | null; role: string }>();
  for (const v of t.values) for (const e of v.evidence) evidence.set(`${e.source}/${e.idempotency_key}#${e.index}`, e);
  return html`<section class="memory" id="m-${m.id}" aria-labelledby="h-${m.id}">
    <header>
      <h3 id="h-${m.id}">${t.fact_key.predicate} <span class="muted">${qualifierText(t.fact_key.qualifiers)}</span></h3>
      <span class="badge ${m.view.status}">${m.view.status}</span>
      ${t.fact_key.scope === 'personal' ? html`<span class="badge">personal</span>` : ''}
      <span class="muted">revision ${m.revision} · <code>${m.id}</code></span>
      ${conflicted ? html`<a href="/inspect/conflicts?subject=${encodeURIComponent(m.subject)}#c-${m.id}">resolve…</a>` : ''}
    </header>
    ${timelineChart(m.id, t, at, conflicted)}
    ${m.view.candidates.length > 0
      ? html`<ul class="candidates" aria-label="Candidates">
          ${m.view.candidates.map(
            (c) => html`<li class="${c.kind === 'possible_contradiction' ? 'conflicted' : ''}">
              ${c.kind === 'possible_contradiction' ? html`<strong>Possible contradiction:</strong> ` : c.kind === 'possible_duplicate' ? html`<strong>Possible duplicate:</strong> ` : ''}may be the same fact as
              <a href="#m-${c.memory_id}">${c.predicate}</a> (score ${c.score.toFixed(2)}): ${c.values.map((v, i) => html`${i > 0 ? ', ' : ''}${show(v)}`)} vs
              ${c.other_values.map((v, i) => html`${i > 0 ? ', ' : ''}${show(v)}`)}
              <span class="muted">— ${c.reason}${c.proposed ? `; proposed ${c.proposed.same ? 'link' : 'as distinct'} by ${c.proposed.source}` : ''}; <code>canon link ${m.id} ${c.memory_id}</code></span>
            </li>`,
          )}
        </ul>`
      : ''}
    ${m.view.linked.length > 0 ? html`<p class="muted">${m.view.linked.length + 1} fact keys linked into this memory.</p>` : ''}
    <table>
      <thead><tr><th scope="col">Value</th><th scope="col">Status</th><th scope="col">Valid from</th><th scope="col">Valid to</th><th scope="col">Conditions</th><th scope="col">Evidence</th></tr></thead>
      <tbody>
        ${t.values.map(
          (v) => html`<tr class="${v.status}">
            <td class="value">${show(v.value)}</td>
            <td>${v.status}${v.superseded_by ? ` (${v.superseded_by})` : ''}${v.ended_by ? html`<br /><span class="muted">ended by ${v.ended_by.source}/${v.ended_by.idempotency_key}</span>` : ''}</td>
            <td>${v.valid_from}</td><td>${v.valid_to ?? '—'}</td>
            <td>${v.conditions.join('; ') || '—'}</td>
            <td>${v.evidence.map((e, i) => html`${i > 0 ? ', ' : ''}${sourceLink(e.source_ref, `${e.source}/${e.idempotency_key}`)} <span class="muted">(${e.role})</span>`)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <details>
      <summary>Decisions (${t.decisions.length})</summary>
      <table>
        <thead><tr><th scope="col">Claim</th><th scope="col">Decision</th><th scope="col">Reason</th><th scope="col">Said</th></tr></thead>
        <tbody>
          ${t.decisions.map((d) => {
            const ref = `${d.claim.source}/${d.claim.idempotency_key}#${d.claim.index}`;
            const e = evidence.get(ref);
            return html`<tr>
              <td>${sourceLink(e?.source_ref ?? null, ref)}${e ? html` <span class="muted">(${e.role})</span>` : ''}</td>
              <td>${d.kind.replace('_', ' ')}${d.target ? html`<br /><span class="muted">${d.target.source}/${d.target.idempotency_key}#${d.target.index}</span>` : ''}</td>
              <td>${d.reason}</td>
              <td>${e?.text ? html`<q>${e.text}</q>` : '—'}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </details>
  </section>`;
}

export function subjectPage(r: SubjectInspection, asOf: string | undefined): Html {
  const { page } = r;
  const nav = (n: number) => subjectHref(r.subject, { page: String(n), ...(asOf ? { as_of: asOf } : {}) });
  const pager =
    page.pages > 1
      ? html`<nav class="pages" aria-label="Pages of memories">
          ${page.number > 1 ? html`<a href="${nav(page.number - 1)}" rel="prev">← Previous</a>` : ''}
          <span>Page ${page.number} of ${page.pages}</span>
          ${page.number < page.pages ? html`<a href="${nav(page.number + 1)}" rel="next">Next →</a>` : ''}
        </nav>`
      : '';
  return html`<h1>${r.subject}</h1>
    ${FRAMING}
    <form method="get" action="${subjectHref(r.subject)}">
      <label for="as_of">View as of (ISO 8601, empty for now)</label>
      <input id="as_of" name="as_of" type="text" value="${asOf ?? ''}" placeholder="2024-05-14T00:00:00Z" />
      <button type="submit">Show</button>
    </form>
    <p>At <time datetime="${r.as_of}">${r.as_of}</time>: ${page.total} memories${Object.entries(page.by_status).length
      ? html` (${Object.entries(page.by_status).map(([s, n], i) => html`${i > 0 ? ', ' : ''}${n} ${s.replace('_', ' ')}`)})`
      : ''}.</p>
    <h2>Episodes by source</h2>
    <table>
      <thead><tr><th scope="col">Source</th><th scope="col">Episodes</th><th scope="col">First</th><th scope="col">Last</th></tr></thead>
      <tbody>${r.sources.map((s) => html`<tr><th scope="row">${s.source}</th><td>${s.episodes}</td><td>${day(s.first_at)}</td><td>${day(s.last_at)}</td></tr>`)}</tbody>
    </table>
    ${r.conflicts.length
      ? html`<h2>Open conflicts on this page</h2>
          <ul>${r.conflicts.map((c) => html`<li><a href="#m-${c.memory_id}">${c.predicate} ${qualifierText(c.qualifiers)}</a>: ${c.sides.map((s, i) => html`${i > 0 ? ' vs ' : ''}<span class="value">${show(s.value)}</span>`)}</li>`)}</ul>`
      : ''}
    ${r.superseded.length
      ? html`<h2>Superseded values on this page</h2>
          <ul>${r.superseded.map(
            (s) => html`<li><a href="#m-${s.memory_id}">${s.predicate} ${qualifierText(s.qualifiers)}</a>: <span class="value">${show(s.value)}</span> replaced${s.replaced_at ? ` at ${s.replaced_at}` : ''} by ${s.how}${s.by_value !== null ? html` → <span class="value">${show(s.by_value)}</span>` : ''}</li>`,
          )}</ul>`
      : ''}
    <h2>Memories</h2>
    ${pager}
    ${r.memories.length ? r.memories.map((m) => memorySection(m, r.as_of)) : html`<p>No memories on this page.</p>`}
    ${pager}`;
}

export function conflictsPage(conflicts: OpenConflict[], role: Role, flash: { ok?: string | undefined; error?: string | undefined }): Html {
  const mine = ROLE_STANDING[role];
  return html`<h1>Open conflicts</h1>
    ${FRAMING}
    ${flash.ok ? html`<p class="notice" role="status">${flash.ok}</p>` : ''}
    ${flash.error ? html`<p class="error" role="alert">${flash.error}</p>` : ''}
    ${conflicts.length === 0 ? html`<p>No open conflicts.</p>` : ''}
    ${conflicts.map(
      (c) => html`<section class="memory" id="c-${c.memory_id}" aria-labelledby="ch-${c.memory_id}">
        <header>
          <h2 id="ch-${c.memory_id}" style="margin:0;font-size:1.05rem">${c.predicate} <span class="muted">${qualifierText(c.qualifiers)}</span></h2>
          <a href="${subjectHref(c.subject)}#m-${c.memory_id}">${c.subject}</a>
        </header>
        <ul>
          ${c.sides.map(
            (s) => html`<li><span class="value">${show(s.value)}</span> <span class="muted">standing ${s.standing}, from ${s.valid_from}</span>:
              ${s.sources.map((x, i) => html`${i > 0 ? '; ' : ''}${sourceLink(x.source_ref, `${x.source}/${x.idempotency_key}`)} (${x.role})${x.text ? html` <q>${x.text}</q>` : ''}`)}</li>`,
          )}
        </ul>
        ${mine >= c.required_standing
          ? html`<form method="post" action="/inspect/conflicts/${c.memory_id}/resolve">
              <fieldset>
                <legend>Resolve: which value holds?</legend>
                ${c.sides.map(
                  (s, i) => html`<label><input type="radio" name="value" value="${show(s.value)}" ${i === 0 ? 'required' : ''} /> <span class="value">${show(s.value)}</span></label>`,
                )}
                <label for="reason-${c.memory_id}">Reason (kept with the correction)</label>
                <textarea id="reason-${c.memory_id}" name="reason" rows="2" required></textarea>
                <input type="hidden" name="revision" value="${c.revision}" />
                <p><button type="submit">Resolve conflict</button></p>
              </fieldset>
            </form>`
          : html`<p class="muted">Resolving needs standing ${c.required_standing}; this key's role (${role}) has ${mine}.</p>`}
      </section>`,
    )}`;
}
