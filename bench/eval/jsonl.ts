import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Reads a JSON-lines data file of an evaluation and validates every line: a malformed line fails
 * with its file and line number, so a hand-written case is fixed where it was written.
 */
export function readJsonl<T>(file: string, schema: z.ZodType<T>): T[] {
  const rows: T[] = [];
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new Error(`${path.basename(file)}:${i + 1}: not JSON (${(err as Error).message})`);
      }
      const parsed = schema.safeParse(raw);
      if (!parsed.success) throw new Error(`${path.basename(file)}:${i + 1}: ${z.prettifyError(parsed.error)}`);
      rows.push(parsed.data);
    });
  return rows;
}
