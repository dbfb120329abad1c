import { Lexer, type Token, type Tokens } from 'marked';
import type { DocumentFact } from './statement.js';
import { htmlHeading, htmlTables } from './markdown-html.js';

/**
 * Markdown (and plain text) as facts, in the few shapes that state one:
 * - a table cell: predicate = its column header, qualifier `row` = the first cell of its row;
 * - a `key: value` list item (`- **Port:** 5432`): predicate = the label;
 * - a default stated under a heading that names an option (`##### etag` … "defaults to true"):
 *   predicate `default`;
 * - a changelog version's release date (`## [v1.1.0](…) - 2024-12-11`): predicate `date` under
 *   the version;
 * - in plain text only, a `key: value` line.
 * Every fact is qualified by the heading path above it (`h2`…`h6`, the document's title left
 * out) and, inside nested lists, by the label of each enclosing item (`l1`, `l2`, …). So the
 * default under `retryLimit` and the default under `retentionDays` are two keys. Code blocks,
 * quotes, front matter, admonitions and prose stay text.
 */
export function markdownFacts(text: string, options: { plain?: boolean } = {}): DocumentFact[] {
  const facts: DocumentFact[] = [];
  const tokens = new Lexer({ gfm: true }).lex(withoutFrontMatter(text));
  const headingsOf = tokens.flatMap((t, i) => {
    const h = headingOf(t);
    return h ? [{ ...h, index: i }] : [];
  });
  // The title: the first heading, when no other heading is at its level or above.
  const first = headingsOf[0];
  const titleIndex = first && headingsOf.slice(1).every((h) => h.depth > first.depth) ? first.index : -1;

  const path: Array<{ depth: number; text: string; version: boolean }> = [];
  const place = (labels: readonly string[]): Record<string, string> => {
    const q: Record<string, string> = {};
    for (const h of path) q[`h${h.depth}`] = h.text;
    labels.forEach((label, i) => (q[`l${i + 1}`] = label));
    return q;
  };
  const inRelease = () => path.some((h) => h.version);
  const add = (predicate: string, labels: readonly string[], value: string, statement: string, extra: Record<string, string> = {}) =>
    facts.push({ predicate, qualifiers: { ...place(labels), ...extra }, value, text: statement });

  const list = (token: Tokens.List, labels: readonly string[]) => {
    for (const item of token.items) {
      const [head, ...rest] = item.tokens;
      const kv = head && (head.type === 'text' || head.type === 'paragraph') ? labelled(head) : null;
      // A release's notes are notes, whatever label they start with (`Fix:`, `deps:`).
      if (kv && !inRelease()) add(kv.key, labels, kv.value, oneLine(inlineText(head)));
      const label = kv?.key ?? (head ? itemLabel(inlineText(head)) : null);
      const inner = label === null ? labels : [...labels, label];
      for (const t of rest) if (t.type === 'list') list(t as Tokens.List, inner);
    }
  };
  const table = (header: string[], rows: string[][]) => {
    for (const row of rows) {
      const rowKey = row[0] ?? '';
      if (!rowKey || rowKey.length > 200) continue;
      row.slice(1).forEach((cell, i) => {
        const column = header[i + 1];
        const value = cleanValue(cell);
        if (!column || value === null) return;
        add(column, [], value, `${rowKey} | ${column}: ${value}`, { row: rowKey });
      });
    }
  };

  tokens.forEach((token, index) => {
    const h = headingOf(token);
    if (h) {
      while (path.length > 0 && path[path.length - 1]!.depth >= h.depth) path.pop();
      if (index === titleIndex) return;
      const release = releaseHeading(h.text);
      path.push({ depth: h.depth, text: (release?.version ?? h.text).slice(0, 200), version: release !== null });
      const date = release?.date ?? releaseDateBelow(tokens, index);
      if (release && date) add('date', [], date, h.text);
      return;
    }
    if (token.type === 'list') list(token as Tokens.List, []);
    else if (token.type === 'table') {
      const t = token as Tokens.Table;
      table(
        t.header.map((c) => oneLine(inlineText(c))),
        t.rows.map((r) => r.map((c) => oneLine(inlineText(c)))),
      );
    } else if (token.type === 'html') {
      for (const t of htmlTables((token as Tokens.HTML).text)) table(t.header, t.rows);
    } else if (token.type === 'paragraph') {
      const line = oneLine(inlineText(token));
      if (options.plain) {
        for (const l of inlineText(token).split('\n')) {
          const kv = keyValue(l);
          if (kv) add(kv.key, [], kv.value, l.trim());
        }
      }
      const named = path[path.length - 1];
      const value = named && !named.version && namesOption(named.text) ? statedDefault(line) : null;
      if (value !== null) add('default', [], value, line);
    }
    // code, blockquote (admonitions), hr, def, space: nothing a fact key can be read from.
  });
  return facts;
}

function headingOf(token: Token): { depth: number; text: string } | null {
  if (token.type === 'heading') {
    const text = oneLine(inlineText(token));
    return text ? { depth: (token as Tokens.Heading).depth, text } : null;
  }
  if (token.type === 'html') return htmlHeading((token as Tokens.HTML).text);
  return null;
}

/** YAML (`---`) or TOML (`+++`) front matter at the very top is metadata for a site generator. */
function withoutFrontMatter(text: string): string {
  const m = /^(?:\uFEFF)?(---|\+\+\+)[ \t]*\r?\n[\s\S]*?\r?\n(?:\1|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  return m ? text.slice(m[0].length) : text;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
const decode = (s: string) => s.replace(/&(#?\w+);/g, (m: string, name: string) => ENTITIES[name] ?? m);

type Inline = Token | { tokens?: Token[]; text?: string; type?: string };

/**
 * The words of inline Markdown, and beside them a mask of the same length in which a colon
 * stands only where it can end a label: colons inside code spans, and inside bold or italic runs
 * that do not end with the colon (`**depth: number**`), are masked out.
 */
function inlineParts(token: Inline | undefined): { text: string; mask: string } {
  if (!token) return { text: '', mask: '' };
  const children = 'tokens' in token ? token.tokens : undefined;
  if (!children || children.length === 0) {
    const own = decode('text' in token && typeof token.text === 'string' ? token.text : '');
    return { text: own, mask: own };
  }
  let text = '';
  let mask = '';
  for (const t of children) {
    let part: { text: string; mask: string };
    switch (t.type) {
      case 'image':
      case 'html':
      case 'checkbox':
        part = { text: '', mask: '' };
        break;
      case 'br':
        part = { text: '\n', mask: '\n' };
        break;
      case 'codespan': {
        const s = decode((t as Tokens.Codespan).text);
        part = { text: s, mask: s.replace(/:/g, '_') };
        break;
      }
      case 'escape':
        part = { text: (t as Tokens.Escape).text, mask: (t as Tokens.Escape).text };
        break;
      case 'link': {
        const link = t as Tokens.Link;
        // A bare reference (`[3]`, a citation) reads as written; any other link as its text.
        if (link.raw === `[${link.text}]` && /^\d+$/.test(link.text)) part = { text: link.raw, mask: link.raw };
        else {
          // A colon inside a link's text is the title's (`[RFC 3986: URI Syntax]`), not a label's.
          const inner = inlineParts(link);
          part = /:\s*$/.test(inner.text) ? inner : { text: inner.text, mask: inner.mask.replace(/:/g, '_') };
        }
        break;
      }
      case 'strong':
      case 'em':
      case 'del': {
        const inner = inlineParts(t);
        part = /:\s*$/.test(inner.text) ? inner : { text: inner.text, mask: inner.mask.replace(/:/g, '_') };
        break;
      }
      default:
        part = inlineParts(t);
    }
    text += part.text;
    mask += part.mask;
  }
  return { text, mask };
}

export function inlineText(token: Inline | undefined): string {
  return inlineParts(token).text;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Labels that open a remark or a commit message rather than name a thing: "Note: …", "fix: …". */
const NOT_KEYS = new Set([
  'note', 'notes', 'nb', 'n.b', 'warning', 'warn', 'caution', 'danger', 'tip', 'tips', 'hint', 'important', 'info', 'example',
  'examples', 'e.g', 'eg', 'i.e', 'ie', 'see', 'see also', 'also', 'update', 'updated', 'edit', 'todo', 'fixme', 'ps', 'tl;dr',
  'tldr', 'why', 'how', 'question', 'answer', 'fix', 'fixes', 'fixed', 'feat', 'feature', 'chore', 'docs', 'refactor', 'perf',
  'revert', 'deps', 'breaking', 'breaking change', 'breaking changes', 'bugfix', 'misc', 'thanks', 'credit', 'credits', 'via',
  'reason', 'caveat', 'pro tip', 'heads up', 'remember', 'attention', 'disclaimer',
]);

/** Words of a clause, not of a name: a label holding one is the start of a sentence. */
const CLAUSE_WORDS = /\b(?:is|are|was|were|be|been|can|could|will|would|should|must|may|might|you|your|we|our|i|it|its|this|that|these|those|if|when|then|here|there|following|does|do|did|has|have|had)\b/i;

function acceptableKey(key: string): boolean {
  if (key.length === 0 || key.length > 80) return false;
  if (!/^[\p{L}\p{N}@_$.'"(-]/u.test(key) || /[.!?;,]$/.test(key) || /\s[-–—]\s/.test(key)) return false;
  if (key.split(/\s+/).length > 6 || CLAUSE_WORDS.test(key) || /^step\s*\d+$/i.test(key)) return false;
  return !NOT_KEYS.has(key.toLowerCase().replace(/\.$/, ''));
}

/** A list item that begins with a label and a colon: the label, and the rest of the item. */
function labelled(block: Inline): { key: string; value: string } | null {
  const { text, mask } = inlineParts(block);
  const m = /^\s*([^:\n]{1,80}?)\s*:(?:\s+|$)/.exec(mask);
  if (!m) return null;
  const lead = mask.length - mask.trimStart().length;
  const key = oneLine(text.slice(lead, lead + m[1]!.length)).replace(/^(["'])(.+)\1$/, '$2');
  const value = cleanValue(oneLine(text.slice(m[0].length)));
  if (value === null || !acceptableKey(key)) return null;
  return { key, value };
}

/** `Key: value` on one line of plain text: a short name, a colon and a space, a value. */
export function keyValue(line: string): { key: string; value: string } | null {
  const m = /^\s*([^:]{1,60}?)\s*:\s+(\S.*)$/u.exec(line);
  if (!m) return null;
  const key = m[1]!.trim();
  const value = cleanValue(m[2]!.trim());
  // Plain text has no markup to tell a label from a sentence: short names, short values only.
  if (value === null || !acceptableKey(key) || key.split(/\s+/).length > 4 || value.split(/\s+/).length > 12) return null;
  return { key, value };
}

/** A value as stated, trailing punctuation off a one-word value; placeholders state none. */
function cleanValue(value: string): string | null {
  let v = value.trim();
  if (!/\s/.test(v)) v = v.replace(/[.,;]+$/, '');
  const quoted = /^(["'`])(.*)\1$/s.exec(v);
  if (quoted && !quoted[2]!.includes(quoted[1]!)) v = quoted[2]!.trim();
  if (v === '' || /^(?:n\/a|none given|\?)$/i.test(v)) return null;
  return v.length > 2000 ? null : v;
}

/**
 * The name an item gives the items nested under it: its first line, up to a dash that starts a
 * description (`retryLimit - how many times…` → `retryLimit`); none when that is prose.
 */
function itemLabel(head: string): string | null {
  const first = oneLine(head.split('\n')[0] ?? '');
  const name = first.split(/\s[-–—]\s|:$/)[0]!.trim();
  if (!name || name.length > 60 || name.split(/\s+/).length > 5) return null;
  return name;
}

const VERSION = /^\[?(?:version\s+)?v?(\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)\]?/i;
const DATE = /(\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{4}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4})/i;

/**
 * A changelog's version heading: a version, then nothing or a date (`3.0.2 / 2025-11-20`,
 * `[v1.1.0](…) - 2024-12-11`, `Version 4.6.2`). "2.0 migration guide" is no release.
 */
export function releaseHeading(text: string): { version: string; date: string | null } | null {
  const m = VERSION.exec(text.trim());
  if (!m) return null;
  const rest = text.trim().slice(m[0].length).replace(/^[\s\-–—/:(]+|[\s)]+$/g, '');
  if (rest === '') return { version: m[1]!, date: null };
  const d = DATE.exec(rest);
  if (!d || rest.replace(d[0], '').replace(/[\s\-–—/,()]+/g, '') !== '') return null;
  return { version: m[1]!, date: d[0] };
}

/** A paragraph that is only a date, right under a version heading, dates that release. */
function releaseDateBelow(tokens: Token[], index: number): string | null {
  if (!releaseHeading(oneLine(inlineText(tokens[index])))) return null;
  const next = tokens.slice(index + 1).find((t) => t.type !== 'space');
  if (next?.type !== 'paragraph') return null;
  const line = oneLine(inlineText(next));
  const d = DATE.exec(line);
  return d && d[0] === line ? line : null;
}

/**
 * A heading that names an option: one identifier (`etag`, `options.maxAge`, `--port`), maybe with
 * its type (`level (String)`).
 */
function namesOption(heading: string): boolean {
  return /^[-\w.$@[\]]+(?:\s*\([^()]*\))?:?$/.test(heading) && heading.length <= 80;
}

/**
 * The default a sentence states ("defaults to true", "The default value is 'ignore'.", "Default:
 * 2"); none when it says more than a few words.
 */
export function statedDefault(sentence: string): string | null {
  const m = /(?:^|[\s(])(?:defaults\s+to|the\s+default(?:\s+value)?\s+is|default(?:\s+value)?\s*:)\s+(.+?)(?:[.;,)](?:\s|$)|$)/i.exec(sentence);
  if (!m) return null;
  let v = m[1]!.trim();
  const quoted = /^(['"`])(.*)\1$/.exec(v);
  if (quoted) v = quoted[2]!;
  if (v === '' || v.split(/\s+/).length > 4) return null;
  return v;
}
