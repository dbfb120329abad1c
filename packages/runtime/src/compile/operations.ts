import type { PgBoss } from 'pg-boss';
import type { Pool } from '@canon/store';
import { ForbiddenError, parseInput } from '@canon/core';
import { z } from 'zod';
import { checkSchedule, DEFAULT_SCHEDULE_KEY, QUEUES, scheduleSingleton, type ScheduledCompileData } from './jobs.js';
import { publicError } from './job-status.js';
import { hiddenSubjects } from '../recall/visibility.js';
import type { Principal } from '../auth/principal.js';

export interface CompileSchedule {
  cron: string;
  time_zone: string;
}

function requireOwner(principal: Principal, what: string): void {
  if (principal.role !== 'owner') throw new ForbiddenError(`only an owner key can ${what}`);
}

/**
 * A workspace's compile schedule, as pg-boss keeps it (so it survives restarts): its own schedule
 * (the pg-boss schedule keyed by the workspace id) or, until its owner sets one, the default
 * (the unkeyed schedule, from CANON_SCHEDULE_CRON / _TZ), which covers every workspace without
 * one of its own.
 */
export async function getCompileSchedule(boss: PgBoss, workspaceId: string): Promise<CompileSchedule | null> {
  const [own] = await boss.getSchedules(QUEUES.scheduledCompile, workspaceId);
  const s = own ?? (await boss.getSchedules(QUEUES.scheduledCompile, DEFAULT_SCHEDULE_KEY))[0];
  return s ? { cron: s.cron, time_zone: s.timezone ?? 'UTC' } : null;
}

/** What a schedule may be, over HTTP and in process alike (a cron alias such as `@daily` is one). */
const ScheduleInput = z.strictObject({ cron: z.string().min(1).max(200), time_zone: z.string().min(1).max(100).optional() });
/** A schedule to set: without `time_zone`, the zone the workspace's schedule has stays (UTC when it has none). */
export type CompileScheduleInput = z.input<typeof ScheduleInput>;

export async function setCompileSchedule(boss: PgBoss, principal: Principal, input: CompileScheduleInput): Promise<CompileSchedule> {
  requireOwner(principal, 'change the compile schedule');
  const given = parseInput(ScheduleInput, input);
  const schedule = { cron: given.cron, time_zone: given.time_zone ?? (await getCompileSchedule(boss, principal.workspace_id))?.time_zone ?? 'UTC' };
  checkSchedule(boss, schedule.cron, schedule.time_zone, { cron: 'cron', timeZone: 'time_zone' });
  // Keyed by the workspace, carrying it: the owner changes their workspace's night and no other.
  const data: ScheduledCompileData = { workspace_id: principal.workspace_id };
  await boss.schedule(QUEUES.scheduledCompile, schedule.cron, data, { tz: schedule.time_zone, key: principal.workspace_id, singletonKey: scheduleSingleton(principal.workspace_id) });
  return (await getCompileSchedule(boss, principal.workspace_id))!;
}

export interface DeadLetter {
  job_id: string;
  subject: string;
  failed_at: string;
  error: unknown;
}

/**
 * Compile jobs of this workspace that exhausted their retries — but those of a subject the key may
 * not see (another user's personal subject), which the list would name.
 */
export async function listDeadLetters(boss: PgBoss, pool: Pool, principal: Principal): Promise<DeadLetter[]> {
  const jobs = await boss.findJobs<{ workspace_id: string; subject: string; error?: string }>(QUEUES.compileDead, { data: { workspace_id: principal.workspace_id } });
  const hidden = new Set(await hiddenSubjects(pool, principal, [...new Set(jobs.map((j) => j.data.subject))]));
  return jobs
    .filter((j) => j.state !== 'completed' && !hidden.has(j.data.subject))
    // A subject job that ran out of retries carries its output; one a many-subject job set aside carries its error.
    .map((j) => ({ job_id: j.id, subject: j.data.subject, failed_at: new Date(j.createdOn).toISOString(), error: publicError(j.sourceOutput ?? j.output ?? j.data.error ?? null) }));
}

/** Moves this workspace's dead letters back onto the compile queue. Returns how many moved. */
export async function redriveDeadLetters(boss: PgBoss, principal: Principal): Promise<number> {
  if (principal.role === 'reader' || principal.role === 'agent') throw new ForbiddenError(`the ${principal.role} role cannot redrive jobs`);
  return boss.redrive(QUEUES.compileDead, { data: { workspace_id: principal.workspace_id }, destination: QUEUES.compile });
}
