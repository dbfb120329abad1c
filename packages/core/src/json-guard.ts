/**
 * What any JSON a client sends must be before anything else reads it (design §2, input limits):
 * nested at most `MAX_JSON_DEPTH` levels, every string and key well-formed Unicode (no lone
 * surrogate) without U+0000. Both walks are iterative: a value nested 100,000 deep must be refused,
 * not overflow the stack that refuses it.
 */
export const MAX_JSON_DEPTH = 32;

export interface JsonFault {
  /** Where, as a dotted path from the value's root ("" for the root itself). */
  path: string;
  message: string;
}

// String.prototype.isWellFormed (ES2024; every supported Node has it) answers the lone-surrogate
// question natively, several times faster than a Unicode-property expression over every string
// of every episode. The compiler's library predates it, hence the type.
const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** A string PostgreSQL and every JSON consumer accept: no lone surrogate, no U+0000. */
export function stringFault(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain U+0000';
  if (!isWellFormed(s)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return null;
}

/** The first fault of a parsed JSON value, or null. */
export function jsonFault(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonFault | null {
  const stack: Array<[unknown, string, number]> = [[value, '', 0]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      const fault = stringFault(v);
      if (fault) return { path, message: fault };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { path, message: `is nested deeper than ${maxDepth} levels` };
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [k, x] = entries[i]!;
      const at = path === '' ? k : `${path}.${k}`;
      if (!Array.isArray(v)) {
        const fault = stringFault(k);
        if (fault) return { path: at, message: `key ${fault}` };
      }
      stack.push([x, at, depth + 1]);
    }
  }
  return null;
}

/**
 * True when JSON text opens more than `maxDepth` arrays or objects at once: read on the raw text,
 * before `JSON.parse`, so a body nested 100,000 deep costs one pass and no recursion anywhere.
 */
export function jsonTextTooDeep(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i += 1; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth -= 1;
  }
  return false;
}
