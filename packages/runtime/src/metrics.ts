import type { PgBoss } from 'pg-boss';
import { compileDurationStats, totalPending, type Pool, type PoolClient } from '@canon/store';
import type { Principal } from './principal.js';
import { withSystem, withWorkspace } from './scope.js';
import { QUEUES } from './jobs.js';

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
  const jobs = boss ? await withSystem(pool, (tx) => queueCounts(tx, principal?.workspace_id ?? null)) : null;
  return metricsText(own.pending, own.stats, jobs);
}

/** Jobs per queue and state (the job queue's tables are outside row-level security: filter here). */
async function queueCounts(tx: PoolClient, workspaceId: string | null): Promise<Array<{ name: string; state: string; n: number }>> {
  const { rows } = await tx.query<{ name: string; state: string; n: number }>(
    `SELECT name, state::text, count(*)::int AS n FROM pgboss.job
     WHERE name = ANY($1::text[]) AND ($2::text IS NULL OR data->>'workspace_id' = $2) GROUP BY 1, 2 ORDER BY 1, 2`,
    [Object.values(QUEUES), workspaceId],
  );
  return rows;
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
    const dead = jobs.filter((r) => r.name === QUEUES.compileDead && r.state !== 'completed').reduce((n, r) => n + r.n, 0);
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
