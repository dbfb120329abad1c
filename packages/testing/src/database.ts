import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { withDatabase } from './global-setup.js';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template: one per test file (or per test). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('canonAdminUrl');
  const template = inject('canonTemplate');
  const name = `canon_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, async (c) => {
    // A template may be copied by one CREATE DATABASE at a time on some versions: retry that.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  });
  return {
    url: withDatabase(adminUrl, name),
    name,
    drop: () => adminQuery(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined)),
  };
}

/** An empty database (no migrations): for the migration tests. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('canonAdminUrl');
  const name = `canon_e_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`).then(() => undefined));
  return {
    url: withDatabase(adminUrl, name),
    name,
    drop: () => adminQuery(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined)),
  };
}

async function adminQuery(url: string, fn: (c: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
