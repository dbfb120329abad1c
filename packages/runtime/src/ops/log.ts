import { createHash } from 'node:crypto';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './log-levels.js';

export type { Logger } from 'pino';

export { LOG_LEVELS, type LogLevel } from './log-levels.js';

export interface LoggerOptions {
  level: LogLevel;
  /** Readable lines for a person at a terminal; JSON lines (the default) for everything else. */
  pretty?: boolean;
  /** Where lines go (default: stdout). Tests pass a collecting stream. */
  destination?: DestinationStream;
}

/**
 * The server's logger: one JSON object per line, `time` in ISO 8601, no pid/hostname (the
 * supervisor knows them). Callers put ids, counters and hashes in it — never a key, a body or a
 * subject name; `subjectRef` is how a subject is named in a log line.
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? (options.pretty ? prettyStdout() : pino.destination({ fd: 1, sync: true }));
  return pino(
    {
      level: options.level,
      base: { service: 'canon' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
    },
    destination,
  );
}

/** A logger that writes nothing: one-shot CLI commands and tests that do not look. */
export const silentLogger: Logger = pino({ level: 'silent' });

let current: Logger = silentLogger;

/**
 * The process's logger. A process has one log stream, and compiles and jobs run deep under
 * functions that take a pool, not a context: they log here. `canon start` installs its logger;
 * every other process (a CLI command whose stdout is its output, `canon mcp` whose stdout is the
 * protocol) keeps the silent one.
 */
export function log(): Logger {
  return current;
}

export function useLogger(logger: Logger): void {
  current = logger;
}

/**
 * How a subject appears in a log line: a short digest, stable across lines so one
 * subject's compiles can be followed, without its name (a subject can be a person's name).
 */
export function subjectRef(workspaceId: string, subject: string): string {
  return createHash('sha256').update(workspaceId).update('\0').update(subject).digest('hex').slice(0, 16);
}

/**
 * An error as a log line may show it: its class, its SQLSTATE or errno code and the first line of
 * its message, cut short — never its stack's frames over many lines, and never pg's `detail`,
 * which quotes row values.
 */
export function serializeError(err: unknown): Record<string, unknown> {
  // pg-boss reports a worker's failure as a plain object spread from the error, plus the queue.
  if (typeof err !== 'object' || err === null) return { message: firstLine(String(err)) };
  const e = err as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown; queue?: unknown };
  const out: Record<string, unknown> = {};
  if (typeof e.name === 'string') out['type'] = e.name;
  out['message'] = typeof e.message === 'string' ? firstLine(e.message) : firstLine(String(err));
  if (typeof e.code === 'string') out['code'] = e.code;
  if (typeof e.queue === 'string') out['queue'] = e.queue;
  const frame = typeof e.stack === 'string' ? e.stack.split('\n').find((l) => l.trimStart().startsWith('at ')) : undefined;
  if (frame) out['at'] = frame.trim().slice(3, 200);
  return out;
}

const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 300);

/**
 * Collapses a storm of one error into a line and a count. The first occurrence of a kind is
 * logged at once; while it keeps recurring within `windowMs`, occurrences are only counted, and
 * one line per window says how many there were. A database outage makes every poller fail twice
 * a second: the log says so once, then every ten seconds.
 */
export class RepeatedErrors {
  readonly #seen = new Map<string, { count: number; timer: NodeJS.Timeout }>();
  constructor(
    private readonly logger: () => Logger,
    private readonly windowMs = 10_000,
  ) {}

  report(kind: string, err: unknown, fields: Record<string, unknown>, msg: string): void {
    const key = `${kind}|${errorKey(err)}`;
    const seen = this.#seen.get(key);
    if (seen) {
      seen.count += 1;
      return;
    }
    this.logger().error({ event: `${kind}_error`, ...fields, err }, msg);
    const entry = { count: 0, timer: setInterval(() => this.#flush(key, fields, err, msg), this.windowMs) };
    entry.timer.unref();
    this.#seen.set(key, entry);
  }

  #flush(key: string, fields: Record<string, unknown>, err: unknown, msg: string): void {
    const entry = this.#seen.get(key);
    if (!entry) return;
    if (entry.count === 0) {
      clearInterval(entry.timer);
      this.#seen.delete(key);
      return;
    }
    this.logger().error({ event: `${key.split('|')[0]}_error`, ...fields, err, repeated: entry.count, window_s: this.windowMs / 1000 }, `${msg} (repeated ${entry.count} times)`);
    entry.count = 0;
  }

  /** Writes the counts still pending (at shutdown) and forgets them. */
  flushAll(): void {
    for (const [key, entry] of this.#seen) {
      clearInterval(entry.timer);
      const kind = key.split('|')[0]!;
      if (entry.count > 0) this.logger().error({ event: `${kind}_error`, repeated: entry.count }, `${kind} (repeated ${entry.count} times)`);
    }
    this.#seen.clear();
  }
}

/**
 * What makes two errors "the same": their code when they have one (a message names a port, a
 * worker id, a queue — every poller's ECONNREFUSED is one outage), else their first line.
 */
function errorKey(err: unknown): string {
  const s = serializeError(err);
  return typeof s['code'] === 'string' ? `code:${s['code']}` : `${String(s['type'])}:${String(s['message'])}`;
}

const LEVEL_LABEL: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'msg', 'service']);

/**
 * Readable lines for a terminal, formatted in this process (no worker thread, no extra
 * package): `12:00:01.123 INFO  msg key=value …`. Logs that a program reads stay JSON.
 */
export function formatLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry['time'] === 'string' ? entry['time'].slice(11, 23) : '';
  const level = typeof entry['level'] === 'string' ? entry['level'].toUpperCase().padEnd(5) : LEVEL_LABEL[Number(entry['level'])] ?? '';
  const fields = Object.entries(entry)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${time} ${level} ${String(entry['msg'] ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
}

function prettyStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(formatLine(line)) };
}
