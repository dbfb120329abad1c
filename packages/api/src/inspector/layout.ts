import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --accent: #0969da; --bad: #cf222e; --warn: #9a6700; --ok: #1a7f37; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; }
header.top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.5rem; border-bottom: 1px solid var(--line); background: #f6f8fa; }
header.top a { color: var(--fg); text-decoration: none; font-weight: 600; }
header.top form { margin-left: auto; }
main { max-width: 1100px; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; margin: 0; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
code, .value { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
a { color: var(--accent); }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-size: .8rem; border: 1px solid var(--line); }
.badge.conflicted { border-color: var(--bad); color: var(--bad); } .badge.current { border-color: var(--ok); color: var(--ok); }
.memory { border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; margin: 1rem 0; }
.memory header { display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
.chart { display: block; max-width: 100%; height: auto; margin: .6rem 0; }
.notice { padding: .6rem .9rem; border: 1px solid var(--ok); border-radius: 6px; background: #dafbe1; }
.error { padding: .6rem .9rem; border: 1px solid var(--bad); border-radius: 6px; background: #ffebe9; }
nav.pages { display: flex; gap: 1rem; align-items: center; margin: 1rem 0; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
label { display: block; margin: .3rem 0; }
textarea, input[type=text], input[type=password] { font: inherit; width: 100%; max-width: 36rem; padding: .35rem; }
button { font: inherit; padding: .3rem .9rem; cursor: pointer; }
.skip { position: absolute; left: -999px; } .skip:focus { left: .5rem; top: .5rem; background: #fff; padding: .2rem .5rem; }
.framing { font-size: .85rem; color: var(--muted); border-left: 3px solid var(--line); padding-left: .6rem; }
`;

/** The page shell: one stylesheet inline, no script, a skip link and landmarks. */
export function page(title: string, body: Html, options: { signedIn?: boolean } = {}): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · Canon inspector</title>
    <style>${raw(STYLE)}</style>
  </head>
  <body>
    <a href="#main" class="skip">Skip to content</a>
    <header class="top">
      <a href="/inspect">Canon inspector</a>
      ${options.signedIn === false ? '' : html`<a href="/inspect">Subjects</a><a href="/inspect/conflicts">Conflicts</a>
      <form method="post" action="/inspect/logout"><button type="submit">Sign out</button></form>`}
    </header>
    <main id="main">${body}</main>
  </body>
</html>`;
}

/** A value as recorded: JSON, so a string reads quoted and nothing in it is markup. */
export const show = (v: unknown): string => JSON.stringify(v) ?? 'null';

export const qualifierText = (q: Record<string, string>): string => {
  const entries = Object.entries(q);
  return entries.length ? `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}` : '';
};

/** A link only for http(s) references: a `javascript:` or `data:` ref is shown, never followed. */
export function sourceLink(ref: string | null, label: string): Html {
  if (!ref) return html`<span>${label}</span>`;
  return /^https?:\/\//i.test(ref) ? html`<a href="${ref}" rel="noreferrer noopener">${label}</a>` : html`<span>${label} <code>${ref}</code></span>`;
}

export const day = (iso: string | null): string => (iso ? iso.slice(0, 10) : '…');
