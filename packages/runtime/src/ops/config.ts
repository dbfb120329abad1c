import path from 'node:path';
import { z } from 'zod';
import { ValidationError } from '@canon/core/errors';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';

/** How long one request to a resolver may take unless told otherwise (the server's, or a workspace's). */
export const DEFAULT_RESOLVER_TIMEOUT_MS = 5000;

const port = z.coerce.number().int().min(0).max(65535);
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);
// A word setting, read in any case; unset or empty: its default.
const lowerCased = (v: unknown) => (typeof v === 'string' && v !== '' ? v.toLowerCase() : undefined);

/** Every environment variable Canon reads, in one place; the README's table mirrors it. */
export const ConfigSchema = z.object({
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  CANON_HOME: z.preprocess(emptyAsUndefined, z.string().default('./.canon')),
  CANON_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
  CANON_PORT: z.preprocess(emptyAsUndefined, port.default(4680)),
  CANON_PG_PORT: z.preprocess(emptyAsUndefined, port.optional()),
  CANON_POOL_SIZE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(2).max(200).default(10)),
  CANON_COMPILE_DEBOUNCE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(3600).default(2)),
  CANON_COMPILE_AFTER: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(500)),
  CANON_COMPILE_CHUNK: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(1_000_000).default(100_000)),
  CANON_JOB_RETENTION_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.001).max(3650).default(7)),
  CANON_CHANGES_RETENTION_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().min(0.001).max(36500).default(30)),
  CANON_SCHEDULE_CRON: z.preprocess(emptyAsUndefined, z.string().min(9).optional()),
  CANON_SCHEDULE_TZ: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  CANON_SCHEDULES: z.preprocess(lowerCased, z.enum(['on', 'off']).default('on')),
  CANON_LOG_LEVEL: z.preprocess(lowerCased, z.enum(LOG_LEVELS).default('info')),
  CANON_METRICS_PUBLIC: z.preprocess(emptyAsUndefined, z.enum(['0', '1']).default('0')),
  CANON_RESOLVER_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  CANON_RESOLVER_KEY: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  CANON_RESOLVER_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(120_000).default(DEFAULT_RESOLVER_TIMEOUT_MS)),
  CANON_RESOLVER_HOSTS: z.preprocess(emptyAsUndefined, z.string().max(4096).optional()),
  CANON_WEBHOOK_HOSTS: z.preprocess(emptyAsUndefined, z.string().max(4096).optional()),
  CANON_WEBHOOK_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(120_000).default(10_000)),
  CANON_WEBHOOK_RETRY_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(50).default(8)),
  CANON_WEBHOOK_RETRY_DELAY_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(3600).default(10)),
  CANON_SEARCH_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(600_000).default(5_000)),
});

const hostList = (v: string | undefined) =>
  Object.freeze(
    (v ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
  );

export interface Config {
  readonly databaseUrl: string | undefined;
  readonly home: string;
  readonly host: string;
  readonly port: number;
  readonly pgPort: number | undefined;
  readonly poolSize: number;
  /** The server's log level (`canon start`); one-shot commands do not log. */
  readonly logLevel: LogLevel;
  /** `/metrics` without a key, totals only (CANON_METRICS_PUBLIC=1); otherwise a key sees its workspace's. */
  readonly metricsPublic: boolean;
  /**
   * How long the database may spend on one search (`CANON_SEARCH_TIMEOUT_MS`, 5 s): past it the
   * search is stopped on the server and answered `503 busy`.
   */
  readonly searchTimeoutMs: number;
  /**
   * A resolver that may propose links for candidate pairs (design §1): its URL, and the API key its
   * answers are recorded with — the key's workspace is the one it resolves, its role their standing.
   */
  readonly resolver: { readonly url: string; readonly key: string; readonly timeoutMs: number } | null;
  /**
   * Hosts (`host` or `host:port`) a workspace may point a resolver of its own at
   * (`CANON_RESOLVER_HOSTS`, comma-separated). Empty: no workspace may — the server never posts
   * to an address a workspace owner chose unless its operator allowed that address.
   */
  readonly resolverHosts: readonly string[];
  /**
   * Webhooks (design §11): the hosts (`host` or `host:port`) a webhook may point at
   * (`CANON_WEBHOOK_HOSTS`, comma-separated; empty: none — the server never posts to an address a
   * workspace chose unless its operator allowed it), one request's bound, and the retries.
   */
  readonly webhooks: {
    readonly hosts: readonly string[];
    readonly timeoutMs: number;
    readonly retryLimit: number;
    readonly retryDelaySeconds: number;
  };
  readonly jobs: {
    readonly debounceSeconds: number;
    readonly compileAfter: number;
    /** Episodes per compile transaction. */
    readonly compileChunk: number;
    readonly retentionDays: number;
    /** How long the change feed keeps a change (GET /v1/changes, webhooks); the scheduled compile prunes older ones. */
    readonly changesRetentionDays: number;
    /** Set: applied at every start. Unset: an existing schedule (`canon schedule set`) is kept, else 03:00 UTC. */
    readonly scheduleCron: string | undefined;
    readonly scheduleTimeZone: string | undefined;
    /**
     * Whether this server fires the stored schedules (`CANON_SCHEDULES=off`: it does not). Each
     * schedule fires once whichever servers fire them; off leaves the firing to the others — a
     * server kept for the API alone, or one a test starts and does not want woken at 03:00.
     */
    readonly fireSchedules: boolean;
  };
}

/** Parses the environment once into a frozen object. Throws a one-line error naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.path.join('.');
    // A number that is none ("abc" read as NaN) is told with what was set, not as the parser's NaN.
    const message = issue.code === 'invalid_type' && issue.expected === 'number' ? `not a number: ${JSON.stringify(env[name])}` : issue.message;
    // Invalid input, as the CLI's exit codes count it (2), not a failure of the command.
    throw new ValidationError(`invalid configuration: ${name}: ${message}`);
  }
  const e = parsed.data;
  return Object.freeze({
    databaseUrl: e.DATABASE_URL,
    home: path.resolve(e.CANON_HOME),
    host: e.CANON_HOST,
    port: e.CANON_PORT,
    pgPort: e.CANON_PG_PORT,
    poolSize: e.CANON_POOL_SIZE,
    logLevel: e.CANON_LOG_LEVEL,
    metricsPublic: e.CANON_METRICS_PUBLIC === '1',
    searchTimeoutMs: e.CANON_SEARCH_TIMEOUT_MS,
    resolverHosts: hostList(e.CANON_RESOLVER_HOSTS),
    webhooks: Object.freeze({
      hosts: hostList(e.CANON_WEBHOOK_HOSTS),
      timeoutMs: e.CANON_WEBHOOK_TIMEOUT_MS,
      retryLimit: e.CANON_WEBHOOK_RETRY_LIMIT,
      retryDelaySeconds: e.CANON_WEBHOOK_RETRY_DELAY_SECONDS,
    }),
    resolver: e.CANON_RESOLVER_URL && e.CANON_RESOLVER_KEY ? Object.freeze({ url: e.CANON_RESOLVER_URL, key: e.CANON_RESOLVER_KEY, timeoutMs: e.CANON_RESOLVER_TIMEOUT_MS }) : null,
    jobs: Object.freeze({
      debounceSeconds: e.CANON_COMPILE_DEBOUNCE_SECONDS,
      compileAfter: e.CANON_COMPILE_AFTER,
      compileChunk: e.CANON_COMPILE_CHUNK,
      retentionDays: e.CANON_JOB_RETENTION_DAYS,
      changesRetentionDays: e.CANON_CHANGES_RETENTION_DAYS,
      scheduleCron: e.CANON_SCHEDULE_CRON,
      scheduleTimeZone: e.CANON_SCHEDULE_TZ,
      fireSchedules: e.CANON_SCHEDULES === 'on',
    }),
    ...overrides,
  });
}
