/**
 * Characters a terminal acts on rather than shows — C0 and C1 controls but the newline and the
 * tab, carriage return, DEL, and the bidirectional overrides — as `\uXXXX` text. What a command
 * prints is data from the log (subjects, values, errors), and any writer may put
 * `\u001b[1A\u001b[2K` in a subject name to erase the line above and write another.
 */
const ACTED_ON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

export function visible(text: string): string {
  return text.replace(ACTED_ON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Shows what the process writes to a terminal through `visible`. Only a terminal: a pipe or a file
 * gets the bytes as they are (an export's lines are hashed as written).
 */
export function guardTerminal(stream: NodeJS.WriteStream): void {
  if (!stream.isTTY) return;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? visible(chunk) : chunk, ...rest)) as typeof stream.write;
}
