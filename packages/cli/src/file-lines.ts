import fs from 'node:fs';
import readline from 'node:readline';
import { ValidationError } from '@canon/core';

/**
 * The lines of a text file, read as a stream: CRLF or LF, and a UTF-8 byte order mark at its start
 * dropped, as `POST /v1/import` reads a body — a file saved by an editor on another system is the
 * same file to both.
 */
export async function* fileLines(file: string): AsyncGenerator<string, void, undefined> {
  const input = fs.createReadStream(file, 'utf8');
  try {
    let first = true;
    for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
      yield first && line.startsWith('\ufeff') ? line.slice(1) : line;
      first = false;
    }
  } finally {
    input.destroy();
  }
}

/** A file to read, or the one line saying why it is not one (exit 2): missing, or a folder. */
export function requireFile(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new ValidationError(`no such file: ${file}`);
  }
  if (!stat.isFile()) throw new ValidationError(`not a file: ${file}${stat.isDirectory() ? ' is a folder' : ''}`);
}
