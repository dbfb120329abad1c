import { cleanString, ValidationError, parseInput } from '@canon/core';
import { changesAfter, parseCursor, type ChangeRow, type Pool } from '@canon/store';
import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { withWorkspaceAsKey } from '../auth/scope.js';
import type { ChangeKind, ChangeSide } from './kinds.js';

/** One change as the feed, a JSON page and a webhook delivery all carry it. */
export interface ChangeEvent {
  /** Its place in commit order: pass it as `after` (or `Last-Event-ID`) to resume behind it. */
  cursor: string;
  memory_id: string;
  subject: string;
  key: string;
  predicate: string;
  scope: 'workspace' | 'personal';
  change: Exclude<ChangeKind, 'history'>;
  before: ChangeSide | null;
  after: ChangeSide | null;
  /** The last episode of the compile with a claim on the memory (null: a snapshot or an erasure did it). */
  episode_id: string | null;
  compile_run_id: string | null;
  changed_at: string;
}

export const Cursor = z.string().max(48).refine((s) => parseCursor(s) !== null, 'not a cursor of the change feed (`<tx>.<position>`, as `next` or an event id gives it)');

export const ChangesParams = z.object({
  after: Cursor.optional(),
  subject: cleanString(z.string().min(1).max(512)).optional(),
  predicate: cleanString(z.string().min(1).max(512)).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type ChangesParams = z.input<typeof ChangesParams>;

/** A page of the feed; `next` is where the following page starts (the last change's cursor, or `after` again). */
export interface ChangesPage {
  changes: ChangeEvent[];
  next: string;
}

/** The feed's start: before every change. */
export const FEED_START = '0.0';

export function parseChangesParams(params: unknown): z.output<typeof ChangesParams> {
  return parseInput(ChangesParams, params, 'query');
}

export const toEvent = (r: ChangeRow): ChangeEvent => ({
  cursor: r.cursor,
  memory_id: r.memory_id,
  subject: r.subject,
  key: r.key,
  predicate: r.predicate,
  scope: r.scope,
  change: r.change as ChangeEvent['change'],
  before: r.before as ChangeSide | null,
  after: r.after as ChangeSide | null,
  episode_id: r.episode_id,
  compile_run_id: r.compile_run_id,
  changed_at: r.changed_at,
});

/**
 * One page of what compiles changed, after a cursor, as the key may see it: row-level security
 * leaves out other users' personal memories, as recall does.
 */
export async function readChanges(pool: Pool, principal: Principal, params: unknown): Promise<ChangesPage> {
  const p = parseChangesParams(params);
  const after = p.after ?? FEED_START;
  // As the key, every page: a follower reads pages for as long as it stays connected, and a key
  // revoked meanwhile (or its user erased) must stop reading the workspace then, not at reconnect.
  const page = await withWorkspaceAsKey(pool, principal, (tx) => changesAfter(tx, principal.workspace_id, { after, subject: p.subject, predicate: p.predicate, limit: p.limit }));
  if (!page.ok) throw new ValidationError('after: not a cursor of the change feed');
  const changes = page.changes.map(toEvent);
  return { changes, next: changes.at(-1)?.cursor ?? after };
}

export interface FollowOptions {
  /** Ends the stream: the client went away, or the server is stopping. */
  signal: AbortSignal;
  /** How long to wait for new changes when the backlog is read (ms). */
  pollMs?: number;
  /** Called when nothing was sent for `heartbeatMs`, so proxies keep the connection. */
  onIdle?: () => Promise<void>;
  heartbeatMs?: number;
}

/**
 * The feed from a cursor on, for as long as the signal allows: the backlog a page at a time, then
 * each new change as it settles (polled: a compile's rows settle when every older transaction
 * has ended). Ends quietly when the signal fires.
 */
export async function* followChanges(pool: Pool, principal: Principal, params: unknown, options: FollowOptions): AsyncGenerator<ChangeEvent> {
  const p = parseChangesParams(params);
  const pollMs = options.pollMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let after = p.after ?? FEED_START;
  let quietSince = Date.now();
  while (!options.signal.aborted) {
    const page = await readChanges(pool, principal, { after, subject: p.subject, predicate: p.predicate, limit: p.limit });
    for (const c of page.changes) {
      if (options.signal.aborted) return;
      yield c;
    }
    after = page.next;
    if (page.changes.length > 0) quietSince = Date.now();
    if (page.changes.length === p.limit) continue;
    if (Date.now() - quietSince >= heartbeatMs) {
      await options.onIdle?.();
      quietSince = Date.now();
    }
    await sleep(pollMs, options.signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
