import { z } from 'zod';
import { NotFoundError } from '@canon/core';
import type { Runtime } from '../surface.js';
import { runConnectorInstance } from './instances.js';
import { CONNECTOR_RUN_QUEUE, ensureConnectorQueue } from './schedules.js';

const JobData = z.object({ workspace_id: z.string().min(1), instance_id: z.string().min(1) });

/**
 * Creates the `connector-run` queue if missing and works it: each job runs one instance with
 * its stored configuration and cursor, and completes with the run's summary. Called by
 * `createRuntime` when the queue is on.
 */
export async function registerConnectorWorkers(runtime: Pick<Runtime, 'pool' | 'ingest' | 'boss'>): Promise<void> {
  const boss = runtime.boss;
  if (!boss) return;
  await ensureConnectorQueue(boss);
  // One job at a time per worker: a sync holds a database connection per batch and reads the
  // source sequentially; more parallelism comes from more worker processes.
  await boss.work<unknown>(CONNECTOR_RUN_QUEUE, { batchSize: 1 }, async ([job]) => {
    if (!job) return null;
    const data = JobData.parse(job.data);
    try {
      return await runConnectorInstance(runtime, { workspace: data.workspace_id, instanceId: data.instance_id, signal: job.signal });
    } catch (err) {
      // Removed between the tick and the run (the schedule goes with it): nothing to do, and
      // nothing to retry.
      if (err instanceof NotFoundError) return { workspace_id: data.workspace_id, instance_id: data.instance_id, removed: true };
      throw err;
    }
  });
}
