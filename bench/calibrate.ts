import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * How fast the machine is right now, on two fixed workloads that no change to Canon touches: one
 * in this process (JSON out and back and SHA-256 of the same 50,000 records, the kind of work a
 * compile's process does) and one in PostgreSQL (a scan of two million generated rows). Measured at
 * the start and the end of `npm run bench`, so a report can be read against another run's: on a
 * shared VM the same code measured hours apart has differed by a third.
 */
export interface Calibration {
  /** Median of 5 runs of the process workload, ms. */
  node_ms: number;
  /** Median of 5 runs of the PostgreSQL workload, ms (null when no database was reachable). */
  postgres_ms: number | null;
}

const RECORDS = Array.from({ length: 50_000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b', String(i % 97)], at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() }));

function nodeWorkload(): void {
  const text = JSON.stringify(RECORDS);
  const back = JSON.parse(text) as unknown[];
  createHash('sha256').update(text).digest('hex');
  if (back.length !== RECORDS.length) throw new Error('calibration: JSON round trip lost records');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]! * 10) / 10;
}

async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function calibrate(databaseUrl: string | null): Promise<Calibration> {
  nodeWorkload();
  const node: number[] = [];
  for (let i = 0; i < 5; i += 1) node.push(await time(nodeWorkload));
  if (!databaseUrl) return { node_ms: median(node), postgres_ms: null };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const scan = `SELECT count(*) FROM generate_series(1, 2000000) AS g WHERE g % 7 = 3`;
    await client.query(scan);
    const db: number[] = [];
    for (let i = 0; i < 5; i += 1) db.push(await time(() => client.query(scan)));
    return { node_ms: median(node), postgres_ms: median(db) };
  } finally {
    await client.end();
  }
}
