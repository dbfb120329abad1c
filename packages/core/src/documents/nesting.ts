import type { DocumentFormat } from './statement.js';

/**
 * How deep a document may nest before its text is not read for facts: brackets of a JSON, YAML or
 * TOML file, block quotes and list markers opening a Markdown line. Real files stay far below it
 * (the fact paths `flatten` reads stop at 32); the parsers recurse once per level, and a few
 * thousand levels — a few kilobytes of `[` — overflow the stack.
 */
export const MAX_DOCUMENT_NESTING = 64;
/**
 * The longest run of one emphasis or code mark (`*`, `_`, `~`, a backtick) a Markdown or text file
 * may hold and still be read. The Markdown parser's time grows with the square of such a run, and
 * 10,000 of them overflow its stack; a rule drawn with 80 asterisks is far below this.
 */
export const MAX_MARK_RUN = 256;
/** The deepest indentation (in characters) a Markdown or text line may have and still be read: lists nest by it. */
export const MAX_INDENT = 512;

const STRUCTURED: ReadonlySet<DocumentFormat> = new Set(['json', 'jsonc', 'package.json', 'yaml', 'toml', 'pyproject.toml']);
const PROSE: ReadonlySet<DocumentFormat> = new Set(['markdown', 'text']);

/**
 * Whether a document nests past what its parser is given (design §2: no accepted episode may make
 * a compile fail). Decided from the text alone, in a few linear passes, before any parser runs, so the same
 * text is read the same way in every process, however deep its stack already is.
 */
export function nestsTooDeep(format: DocumentFormat, text: string): boolean {
  if (STRUCTURED.has(format)) return bracketDepth(text) > MAX_DOCUMENT_NESTING || (format === 'yaml' && lineOpeners(text, /^[ \t]*(?:[-?][ \t]+)/) > MAX_DOCUMENT_NESTING);
  if (PROSE.has(format)) {
    const starts = lineStarts(text);
    return starts.quotes > MAX_DOCUMENT_NESTING || starts.indent > MAX_INDENT || lineOpeners(text, /^[ \t]*(?:[-*+][ \t]+|\d{1,9}[.)][ \t]+)/) > MAX_DOCUMENT_NESTING || longestMarkRun(text) > MAX_MARK_RUN;
  }
  return false;
}

/** The deepest `[` / `{` nesting outside double-quoted strings (a single-quoted one counts: erring deep is safe). */
function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22 || c === 0x0a) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) max = depth;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth -= 1;
  }
  return max;
}

/**
 * What opens the lines of a text, at most: the `>` of block quotes within block quotes (spaces
 * between them allowed), and the indentation before anything else.
 */
function lineStarts(text: string): { quotes: number; indent: number } {
  let quotes = 0;
  let indent = 0;
  for (const line of text.split('\n')) {
    let q = 0;
    let i = 0;
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i += 1;
    if (i > indent) indent = i;
    for (; i < line.length; i += 1) {
      const c = line[i];
      if (c === '>') q += 1;
      else if (c !== ' ' && c !== '\t') break;
    }
    if (q > quotes) quotes = q;
  }
  return { quotes, indent };
}

/**
 * The most markers one line opens with, each a level of nesting (`- - - x`, `1. - * x`), counted
 * no further than one past the bound: only whether a line passes it matters.
 */
function lineOpeners(text: string, opener: RegExp): number {
  let max = 0;
  for (const line of text.split('\n')) {
    let rest = line;
    let n = 0;
    for (let m = opener.exec(rest); m !== null && m[0].length > 0 && n <= MAX_DOCUMENT_NESTING; m = opener.exec(rest)) {
      n += 1;
      rest = rest.slice(m[0].length);
    }
    if (n > max) max = n;
  }
  return max;
}

function longestMarkRun(text: string): number {
  let max = 0;
  let run = 0;
  let prev = -1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // * _ ~ `
    if (c === 0x2a || c === 0x5f || c === 0x7e || c === 0x60) {
      run = c === prev ? run + 1 : 1;
      if (run > max) max = run;
    } else run = 0;
    prev = c;
  }
  return max;
}
