import type { PgBoss } from 'pg-boss';
import { isUuid, NotFoundError, ValidationError } from '@canon/core';
import { getJobProgress, type Pool } from '@canon/store';
import type { Principal } from '../auth/principal.js';
import { hiddenSubjects } from '../recall/visibility.js';
import { QUEUES, type JobState } from './jobs.js';
import { allUsersOf, withWorkspace } from '../auth/scope.js';

export interface JobView {
  job_id: string;
  queue: string;
  state: JobState;
  result?: unknown;
  error?: unknown;
  /** For `{all}` / `{subjects}` jobs: subjects compiled so far, of how many. */
  progress?: { done: number; total: number };
  created_at: string;
  started_at?: string;
  completed_at?: string;
}

/** A job id as sent: a UUID, or a `400` naming `job_id` (before anything is looked up). */
export function checkJobId(jobId: string): void {
  if (!isUuid(jobId)) throw new ValidationError(`job_id: not a job id (a UUID): ${jobId.slice(0, 64)}`);
}

/**
 * A compile job of the key's workspace, from pg-boss's own tables (so it survives restarts).
 * A job naming a subject the key may not see (another user's personal subject) is as absent
 * as one of another workspace, unless the key's user asked for it: its result would name the
 * subject. A job another user asked for answers without its result, told as that user sees it.
 */
export async function findJob(boss: PgBoss, pool: Pool, principal: Principal, jobId: string): Promise<JobView> {
  checkJobId(jobId);
  const workspaceId = principal.workspace_id;
  // A workspace's own scheduled compile is its job too (its id is in the log line each run writes);
  // the default schedule's spans every workspace without one, so no key's workspace owns it.
  for (const queue of [QUEUES.compileMany, QUEUES.compileAll, QUEUES.compile, QUEUES.compileDead, QUEUES.scheduledCompile]) {
    const [job] = await boss.findJobs<{ workspace_id?: string; subject?: string; subjects?: string[]; visible_to?: { user?: unknown } }>(queue, { id: jobId });
    // Another workspace's job is as absent as one that does not exist.
    if (!job || job.data?.workspace_id !== workspaceId) continue;
    // A job this key's user asked for names what they sent and compiled each subject as they may
    // see it (another user's personal subject as one no one wrote): it tells them nothing new.
    const asked = job.data.visible_to !== undefined && (job.data.visible_to.user ?? null) === principal.user;
    // A job a user asked for was compiled as they may see it: its result counts their personal
    // memories and hashes them in, so another user's key is told the job's state and not its
    // result (a key of no user asks for one with no personal part, which any key may read).
    const withheld = !asked && typeof job.data.visible_to?.user === 'string';
    const named = asked ? [] : [...(job.data.subject ? [job.data.subject] : []), ...(job.data.subjects ?? []), ...failedSubjects(job.output)];
    if ((await hiddenSubjects(pool, principal, named)).length > 0) continue;
    const failed = job.state === 'failed' || job.state === 'cancelled';
    const view: JobView = {
      job_id: job.id,
      queue,
      state: job.state,
      created_at: new Date(job.createdOn).toISOString(),
    };
    if (job.startedOn && job.state !== 'created') view.started_at = new Date(job.startedOn).toISOString();
    if (job.completedOn) view.completed_at = new Date(job.completedOn).toISOString();
    if (queue === QUEUES.compileMany || queue === QUEUES.compileAll) {
      const progress = await withWorkspace(pool, allUsersOf(workspaceId), (tx) => getJobProgress(tx, workspaceId, jobId));
      if (progress) view.progress = progress;
    }
    if (job.state === 'completed' && !withheld) view.result = job.output;
    if (failed || job.state === 'retry') view.error = publicError(job.output);
    return view;
  }
  throw new NotFoundError(`no job ${jobId}`);
}

/** The subjects a scheduled compile's result names as failed: it names no others. */
function failedSubjects(output: unknown): string[] {
  if (output === null || typeof output !== 'object' || !Array.isArray((output as { failed?: unknown }).failed)) return [];
  return ((output as { failed: unknown[] }).failed).flatMap((f) => (f !== null && typeof f === 'object' && typeof (f as { subject?: unknown }).subject === 'string' ? [(f as { subject: string }).subject] : []));
}

/**
 * What a failed job tells whoever polls it: the error's class, code and message. pg-boss keeps the
 * whole error — a stack of the server's file paths, PostgreSQL's source file, line and routine —
 * which is for the operator's log (the `job` line), not for an API client.
 */
export function publicError(output: unknown): unknown {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return output;
  const o = output as Record<string, unknown>;
  if (typeof o['message'] !== 'string') return output;
  const out: Record<string, unknown> = {};
  if (typeof o['name'] === 'string') out['name'] = o['name'];
  if (typeof o['code'] === 'string') out['code'] = o['code'];
  out['message'] = (o['message'] as string).split('\n')[0]!.slice(0, 2000);
  return out;
}
