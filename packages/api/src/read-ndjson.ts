import { EXPORT_LINE_BYTES, ExportInvalidError, IMPORT_REQUEST_BYTES, PayloadTooLargeError } from '@canon/core';
import type { Context } from 'hono';
import { UnsupportedMediaTypeError } from './read-json.js';

const NDJSON_TYPE = /^application\/(?:x-ndjson|jsonl|x-jsonlines)\s*(?:;|$)/i;

/**
 * The lines of an NDJSON request body, read as they arrive (never the whole body in memory): the
 * body at most IMPORT_REQUEST_BYTES, else a 413; a line longer than EXPORT_LINE_BYTES is refused
 * as the reader refuses it (`export_invalid`, naming the line) without waiting for its end. What
 * a line holds is the reader's to judge (core ExportReader).
 */
export async function* ndjsonLines(c: Context): AsyncGenerator<string, void, undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!NDJSON_TYPE.test(type)) throw new UnsupportedMediaTypeError('send the body as application/x-ndjson (an export, one JSON object a line)');
  const body = c.req.raw.body;
  if (!body) return;
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > IMPORT_REQUEST_BYTES) throw new PayloadTooLargeError(`the body is larger than ${IMPORT_REQUEST_BYTES} bytes`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let total = 0;
  let partial = '';
  let lines = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > IMPORT_REQUEST_BYTES) throw new PayloadTooLargeError(`the body is larger than ${IMPORT_REQUEST_BYTES} bytes`);
    partial += decode(decoder, lines + 1, chunk);
    let at: number;
    while ((at = partial.indexOf('\n')) >= 0) {
      lines += 1;
      yield stripCr(partial.slice(0, at));
      partial = partial.slice(at + 1);
    }
    // A line's characters never outnumber its bytes: past the limit in characters, it is too long.
    if (partial.length > EXPORT_LINE_BYTES) throw new ExportInvalidError(lines + 1, `longer than ${EXPORT_LINE_BYTES} bytes`);
  }
  partial += decode(decoder, lines + 1);
  if (partial.length > 0) yield stripCr(partial);
}

/**
 * The chunk's text; bytes that are not UTF-8 are a file no export wrote (`export_invalid`), named
 * by the first line not yet read whole (the bad bytes are in it, or in a line after it that the same
 * chunk starts).
 */
function decode(decoder: InstanceType<typeof TextDecoder>, line: number, chunk?: Uint8Array): string {
  try {
    return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) throw new ExportInvalidError(line, 'not UTF-8 text');
    throw err;
  }
}

const stripCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
