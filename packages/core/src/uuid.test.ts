import { describe, expect, it } from 'vitest';
import { isUuid } from './uuid.js';

describe('isUuid', () => {
  it('takes a UUID in either case and nothing around it', () => {
    expect(isUuid('0b5d6c1e-8f3a-4c2b-9d7e-1a2b3c4d5e6f')).toBe(true);
    expect(isUuid('0B5D6C1E-8F3A-4C2B-9D7E-1A2B3C4D5E6F')).toBe(true);
    for (const s of ['', 'not-a-uuid', 'connector:git:demo', ' 0b5d6c1e-8f3a-4c2b-9d7e-1a2b3c4d5e6f', '0b5d6c1e8f3a4c2b9d7e1a2b3c4d5e6f']) expect(isUuid(s), s).toBe(false);
  });
});
