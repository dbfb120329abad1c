/**
 * A key path as one predicate string: `compilerOptions.strict`, `jobs.test.steps[0].uses`,
 * `exports["./package.json"]`. Names made of word characters and `-`, `@`, `/`, `$`, `:` are
 * written bare; any other name (a dot, a bracket, a space, empty) is JSON-quoted in brackets, and
 * array positions are bare numbers in brackets. So two different paths never print alike, and
 * `parseKeyPath` gives the path back.
 */
export type KeyPath = ReadonlyArray<string | number>;

const BARE = /^[\p{L}\p{N}_$@/:-]+$/u;

export function keyPathString(path: KeyPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (BARE.test(part) && !/^\d/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** The path a `keyPathString` printed; null for a string it cannot have printed. */
export function parseKeyPath(text: string): Array<string | number> | null {
  const parts: Array<string | number> = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '[') {
      if (text[i + 1] === '"') {
        // A JSON string ends at the first quote not escaped by an odd run of backslashes.
        let j = i + 2;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (text[j + 1] !== ']') return null;
        try {
          parts.push(JSON.parse(text.slice(i + 1, j + 1)) as string);
        } catch {
          return null;
        }
        i = j + 2;
      } else {
        const m = /^\[(\d+)\]/.exec(text.slice(i));
        if (!m) return null;
        parts.push(Number(m[1]));
        i += m[0].length;
      }
      continue;
    }
    if (text[i] === '.') {
      if (parts.length === 0) return null;
      i += 1;
    } else if (parts.length > 0) return null;
    const m = /^[\p{L}\p{N}_$@/:-]+/u.exec(text.slice(i));
    if (!m) return null;
    parts.push(m[0]);
    i += m[0].length;
  }
  return parts;
}
