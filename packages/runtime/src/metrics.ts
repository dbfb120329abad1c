import type { PgBoss } from 'pg-boss';
import { compileDurationStats, totalPending, type Pool, type PoolClient } from '@canon/store';
import { withSystem } from './scope.js';
import { QUEUES } from './jobs.js';

/** Prometheus text exposition: pending episodes, queue depth per state, dead letters, compile durations. */
export function collectMetrics(pool: Pool, boss: PgBoss | null): Promise<string> {
  return withSystem(pool, (tx) => metricsText(tx, boss));
}

async function metricsText(pool: PoolClient, boss: PgBoss | null): Promise<string> {
  const lines: string[] = [];
  const metric = (name: string, help: string, type: 'gauge' | 'counter', samples: Array<[Record<string, string>, number]>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const l = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`).join(',');
      lines.push(`${name}${l ? `{${l}}` : ''} ${value}`);
    }
  };
  metric('canon_pending_episodes', 'Episodes ingested and not yet compiled', 'gauge', [[{}, await totalPending(pool)]]);
  if (boss) {
    const { rows } = await pool.query<{ name: string; state: string; n: number }>(
      `SELECT name, state::text, count(*)::int AS n FROM pgboss.job WHERE name = ANY($1::text[]) GROUP BY 1, 2 ORDER BY 1, 2`,
      [Object.values(QUEUES)],
    );
    metric('canon_queue_jobs', 'Jobs per queue and state', 'gauge', rows.filter((r) => r.name !== QUEUES.compileDead).map((r) => [{ queue: r.name, state: r.state }, r.n]));
    const dead = rows.filter((r) => r.name === QUEUES.compileDead && r.state !== 'completed').reduce((n, r) => n + r.n, 0);
    metric('canon_dead_letters', 'Compile jobs that exhausted their retries', 'gauge', [[{}, dead]]);
  }
  const stats = await compileDurationStats(pool);
  metric('canon_compile_duration_ms_sum', 'Total time spent in compile transactions', 'counter', stats.map((s) => [{ kind: s.kind }, s.sum_ms]));
  metric('canon_compile_runs_total', 'Compile transactions that changed something', 'counter', stats.map((s) => [{ kind: s.kind }, s.count]));
  return `${lines.join('\n')}\n`;
}
