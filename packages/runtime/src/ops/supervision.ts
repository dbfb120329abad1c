import { databaseAnswers, type Pool } from '@canon/store';
import type { EmbeddedDatabase } from './embedded-postgres.js';
import type { Logger } from './log.js';

export interface SupervisorOptions {
  pool: Pool;
  /** The embedded server this process started, to restart; null with DATABASE_URL (or attached). */
  embedded: EmbeddedDatabase | null;
  logger: () => Logger;
  /** Restarts in a row before giving up (a restart counts as "in a row" unless the server then ran for `stableMs`). */
  maxRestarts?: number;
  stableMs?: number;
  /** First delay between attempts, doubled each time up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The embedded server cannot be brought back: the process should exit for its supervisor. */
  onGiveUp(err: unknown): void;
}

export interface DatabaseSupervisor {
  /** `up`; `down` (unreachable, being probed or restarted); `failed` (given up). */
  readonly state: 'up' | 'down' | 'failed';
  /** Liveness: false only when this process cannot recover by itself. */
  readonly live: boolean;
  /** Something failed to reach the database: start probing (with backoff) until it answers. */
  noteUnavailable(): void;
  stop(): void;
}

/**
 * Keeps the database reachable, or says it cannot. pg's pool and pg-boss reconnect by themselves
 * on their next query once the server answers again; what they cannot do is start a server that
 * died. So: an embedded PostgreSQL that exits unasked is restarted on its folder and port, with
 * backoff, and after `maxRestarts` failures in a row the supervisor gives up (`onGiveUp`), since
 * a process supervisor restarting all of Canon has a better chance than one more try. With
 * DATABASE_URL (or a server another process owns) there is nothing to restart: the database is
 * probed with backoff until it answers, and the process stays up and says 503 meanwhile.
 * Transitions are logged once each, not once per failed query.
 */
export function superviseDatabase(options: SupervisorOptions): DatabaseSupervisor {
  const maxRestarts = options.maxRestarts ?? 5;
  const stableMs = options.stableMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const log = options.logger;
  let state: DatabaseSupervisor['state'] = 'up';
  let stopped = false;
  let downSince = 0;
  let probing = false;
  let restarts = 0;
  let lastRestartAt = 0;
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const delay = (attempt: number) => Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));

  const answers = () => databaseAnswers(options.pool);

  const markUp = () => {
    if (state !== 'down') return;
    state = 'up';
    log().info({ event: 'database_up', down_ms: Date.now() - downSince }, 'database reachable again');
  };

  // DATABASE_URL: probe until the server answers; the pool reconnects on that same query.
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      for (let attempt = 1; !stopped && state === 'down'; attempt += 1) {
        if (await answers()) return markUp();
        await sleep(delay(attempt));
      }
    } finally {
      probing = false;
    }
  };

  const restart = async (how: string) => {
    if (stopped || state === 'failed') return;
    const now = Date.now();
    if (now - lastRestartAt >= stableMs) restarts = 0;
    if (state === 'up') downSince = now;
    state = 'down';
    log().warn({ event: 'database_exited', how }, `embedded PostgreSQL exited (${how}); restarting it`);
    let lastError: unknown = new Error(`PostgreSQL exited (${how})`);
    while (!stopped && restarts < maxRestarts) {
      restarts += 1;
      lastRestartAt = Date.now();
      await sleep(delay(restarts));
      if (stopped) return;
      try {
        await options.embedded!.restart();
        log().info({ event: 'database_restarted', attempt: restarts, pid: options.embedded!.pid }, 'embedded PostgreSQL restarted');
        // Ready to connect does not mean the pool has: the first query says so.
        if (await answers()) markUp();
        else void probe();
        return;
      } catch (err) {
        lastError = err;
        log().warn({ event: 'database_restart_failed', attempt: restarts, err }, 'embedded PostgreSQL did not restart');
      }
    }
    if (stopped) return;
    state = 'failed';
    log().fatal({ event: 'database_gave_up', attempts: restarts, err: lastError }, `embedded PostgreSQL could not be restarted after ${restarts} attempts; exiting`);
    options.onGiveUp(lastError);
  };

  options.embedded?.onUnexpectedExit((how) => void restart(how));

  return {
    get state() {
      return state;
    },
    get live() {
      return state !== 'failed';
    },
    noteUnavailable() {
      if (stopped || state !== 'up') return;
      state = 'down';
      downSince = Date.now();
      log().warn({ event: 'database_down' }, 'database unreachable; requests answer 503 until it is back');
      // An embedded server that died is also being restarted by its exit handler; the probe
      // only watches for the moment it answers.
      void probe();
    },
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
