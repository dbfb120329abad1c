import type { Sql } from '../db.js';

/** The lock two processes starting on a fresh database take before minting the first key. */
export async function lockKeyBootstrap(tx: Sql): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7236002)');
}
