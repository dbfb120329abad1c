import { describe, expect, it } from 'vitest';
import { guardTerminal, visible } from './visible.js';

describe('visible', () => {
  it('shows a subject that would move the cursor and erase a line as the text it is', () => {
    const forged = 'zz:x\n\u001b[1A\u001b[2Kall good: 0 subjects failed\r';
    expect(visible(`FAIL ${forged}`)).toBe('FAIL zz:x\n\\u001b[1A\\u001b[2Kall good: 0 subjects failed\\u000d');
    expect(visible('\u009b2J \u202egnp.exe \u0007')).toBe('\\u009b2J \\u202egnp.exe \\u0007');
  });

  it('leaves text, newlines, tabs and every plane alone', () => {
    const text = 'service:billing\tZoë 🚀 東京\n';
    expect(visible(text)).toBe(text);
  });
});

describe('guardTerminal', () => {
  it('rewrites what goes to a terminal, and nothing that goes to a pipe', () => {
    const written: unknown[] = [];
    const stream = (isTTY: boolean) => ({ isTTY, write: (chunk: unknown) => written.push(chunk) }) as unknown as NodeJS.WriteStream;
    const tty = stream(true);
    guardTerminal(tty);
    tty.write('a\u001b[2Kb\n');
    const pipe = stream(false);
    guardTerminal(pipe);
    pipe.write('a\u001b[2Kb\n');
    expect(written).toEqual(['a\\u001b[2Kb\n', 'a\u001b[2Kb\n']);
  });
});
