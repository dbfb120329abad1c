import type { PgBoss } from 'pg-boss';
import { compileDurationStats, totalPending, type Pool } from '@canon/store';
import type { Principal } from '../auth/principal.js';
import { withSystem, withWorkspace } from '../auth/scope.js';
import { QUEUES } from '../compile/jobs.js';

/**
 * Prometheus text exposition: pending episodes, queue depth per state, dead letters, compile
 * durations. With a key: its workspace's, counted from the rows the key may see (row-level
 * security) and from the jobs carrying its workspace. Without one (CANON_METRICS_PUBLIC=1):
 * totals over every workspace, with no label naming a workspace or subject.
 */
export async function collectMetrics(pool: Pool, boss: PgBoss | null, principal: Principal | null): Promise<string> {
  const own = principal
    ? await withWorkspace(pool, principal, async (tx) => ({ pending: await totalPending(tx), stats: await compileDurationStats(tx) }))
    : await withSystem(pool, async (tx) => ({ pending: await totalPending(tx), stats: await compileDurationStats(tx) }));
  const jobs = boss ? await (principal ? workspaceQueueCounts(boss, principal.workspace_id) : queueTotals(boss)) : null;
  return metricsText(own.pending, own.stats, jobs);
}

type QueueCount = { name: string; state: string; n: number };

/** A workspace's jobs are told apart only by their data, so at most this many are read per queue. */
export const WORKSPACE_QUEUE_COUNT_CAP = 10_000;

/**
 * Totals over every workspace, from pg-boss's own queue statistics: its job table is its private
 * layout, and its counts are kept current by its supervisor.
 */
async function queueTotals(boss: PgBoss): Promise<QueueCount[]> {
  const queues = await boss.getQueues(Object.values(QUEUES));
  return queues
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((q) => [
      { name: q.name, state: 'queued', n: q.queuedCount },
      { name: q.name, state: 'active', n: q.activeCount },
      { name: q.name, state: 'failed', n: q.failedCount },
    ]);
}

/**
 * One workspace's waiting jobs, found by the workspace id their data carries (pg-boss's queue
 * statistics cannot be split by workspace). Running jobs are not counted: only a scan of every
 * retained job could tell whose they are.
 */
async function workspaceQueueCounts(boss: PgBoss, workspaceId: string): Promise<QueueCount[]> {
  const counts: QueueCount[] = [];
  for (const name of Object.values(QUEUES).sort()) {
    const jobs = await boss.findJobs(name, { data: { workspace_id: workspaceId }, queued: true, limit: WORKSPACE_QUEUE_COUNT_CAP });
    counts.push({ name, state: 'queued', n: jobs.length });
  }
  return counts;
}

function metricsText(
  pending: number,
  stats: Array<{ kind: string; count: number; sum_ms: number }>,
  jobs: Array<{ name: string; state: string; n: number }> | null,
): string {
  const lines: string[] = [];
  const metric = (name: string, help: string, type: 'gauge' | 'counter', samples: Array<[Record<string, string>, number]>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const l = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`).join(',');
      lines.push(`${name}${l ? `{${l}}` : ''} ${value}`);
    }
  };
  metric('canon_pending_episodes', 'Episodes ingested and not yet compiled', 'gauge', [[{}, pending]]);
  if (jobs) {
    metric('canon_queue_jobs', 'Jobs per queue and state', 'gauge', jobs.filter((r) => r.name !== QUEUES.compileDead).map((r) => [{ queue: r.name, state: r.state }, r.n]));
    const dead = jobs.filter((r) => r.name === QUEUES.compileDead && r.state === 'queued').reduce((n, r) => n + r.n, 0);
    metric('canon_dead_letters', 'Compile jobs that exhausted their retries', 'gauge', [[{}, dead]]);
  }
  metric('canon_compile_duration_ms_sum', 'Total time spent in compile transactions', 'counter', stats.map((s) => [{ kind: s.kind }, s.sum_ms]));
  metric('canon_compile_runs_total', 'Compile transactions that changed something', 'counter', stats.map((s) => [{ kind: s.kind }, s.count]));
  // The server process's own memory, under the names Prometheus's client libraries use, so that
  // growth can be told apart: the JavaScript heap (objects kept) from the resident set (which
  // also holds V8's unreturned free space, code, and buffers).
  const m = process.memoryUsage();
  metric('process_resident_memory_bytes', 'Resident memory size in bytes', 'gauge', [[{}, m.rss]]);
  metric('nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes', 'gauge', [[{}, m.heapUsed]]);
  metric('nodejs_heap_size_total_bytes', 'V8 heap reserved, in bytes', 'gauge', [[{}, m.heapTotal]]);
  metric('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript objects (buffers included), in bytes', 'gauge', [[{}, m.external]]);
  return `${lines.join('\n')}\n`;
}
