import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invalidInput, parseInput, ValidationError } from './errors.js';

describe('invalidInput', () => {
  const Schema = z.object({ limit: z.number().int().min(1), rules: z.array(z.object({ role: z.enum(['owner', 'agent']) })) }).strict();

  it('names each field in the message and in the issues alike', () => {
    const failed = Schema.safeParse({ limit: 0, rules: [{ role: 'root' }] });
    expect(failed.success).toBe(false);
    const err = invalidInput(failed.error!);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues.map((i) => i.path)).toEqual(['limit', 'rules.0.role']);
    for (const i of err.issues) expect(err.message).toContain(`${i.path}: ${i.message}`);
  });

  it('puts an issue about the whole input on `where`, and a nested input under its prefix', () => {
    const whole = z.object({ a: z.string() }).safeParse('not an object');
    expect(invalidInput(whole.error!, 'query').issues.map((i) => i.path)).toEqual(['query']);
    expect(invalidInput(whole.error!, 'policies', 'policies').issues.map((i) => i.path)).toEqual(['policies']);
    const nested = Schema.safeParse({ limit: 2, rules: [{ role: 'root' }] });
    expect(invalidInput(nested.error!, 'policies', 'policies').issues.map((i) => i.path)).toEqual(['policies.rules.0.role']);
  });

  it('parseInput returns the parsed value or throws the same error', () => {
    expect(parseInput(Schema, { limit: 3, rules: [] })).toEqual({ limit: 3, rules: [] });
    expect(() => parseInput(Schema, { limit: 3, rules: [], extra: 1 })).toThrow(ValidationError);
    const thrown = (() => {
      try {
        parseInput(Schema, { rules: [] });
        return null;
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).issues.map((i) => i.path)).toEqual(['limit']);
  });
});

describe('ValidationError without issues', () => {
  it('lists its message as the one issue, about the field the message starts with', () => {
    expect(new ValidationError('after: not a cursor of the change feed').issues).toEqual([{ index: 0, path: 'after', message: 'not a cursor of the change feed' }]);
    expect(new ValidationError('Last-Event-ID: not a cursor').issues).toEqual([{ index: 0, path: 'Last-Event-ID', message: 'not a cursor' }]);
    expect(new ValidationError('the batch is empty').issues).toEqual([{ index: 0, path: 'body', message: 'the batch is empty' }]);
    expect(new ValidationError('the batch is empty').details).toEqual({ issues: [{ index: 0, path: 'body', message: 'the batch is empty' }] });
  });

  it('keeps the issues it is given', () => {
    const issues = [{ index: 2, path: 'subject', message: 'too long' }];
    expect(new ValidationError('1 of 3 episodes are invalid', issues).issues).toEqual(issues);
  });
});
