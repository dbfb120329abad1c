import { describe, expect, it } from 'vitest';
import { publicError } from './job-status.js';

describe('publicError', () => {
  it('keeps a failed job\'s class, code and first line of message, and none of the server\'s internals', () => {
    const pgError = {
      name: 'error',
      message: 'index row size 3128 exceeds btree version 4 maximum 2704 for index "memories_subject_key_idx"\nDETAIL: more',
      stack: 'error: index row size …\n    at /work/canon/node_modules/pg/lib/client.js:545:17',
      code: '54000',
      file: 'nbtutils.c',
      line: '2680',
      routine: '_bt_check_third_page',
      hint: 'Values larger than 1/3 of a buffer page cannot be indexed.',
    };
    expect(publicError(pgError)).toEqual({ name: 'error', code: '54000', message: 'index row size 3128 exceeds btree version 4 maximum 2704 for index "memories_subject_key_idx"' });
    expect(JSON.stringify(publicError(pgError))).not.toMatch(/node_modules|nbtutils|routine|stack/);
  });

  it('passes through what is not an error: a string, null, a result', () => {
    expect(publicError('Error: boom')).toBe('Error: boom');
    expect(publicError(null)).toBeNull();
    expect(publicError({ subjects: 1 })).toEqual({ subjects: 1 });
  });
});
