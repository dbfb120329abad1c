import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createRuntime, loadConfig, startEmbeddedPostgres, type EmbeddedDatabase } from '@canon/runtime';

/**
 * The run's own template: two runs against one TEST_DATABASE_URL (two checkouts, two people)
 * must not drop each other's template mid-run, nor clone one migrated by other code.
 */
export const TEMPLATE_DATABASE = `canon_template_${process.pid}`;

declare module 'vitest' {
  export interface ProvidedContext {
    /** A connection string to the cluster's maintenance database (for CREATE DATABASE). */
    canonAdminUrl: string;
    canonTemplate: string;
  }
}

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL when set (any PostgreSQL 15+), else an
 * embedded one in a temporary folder. One migrated template database (Canon's tables and
 * pg-boss's schema) that every test file clones, so files run in parallel on their own data.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let embedded: EmbeddedDatabase | null = null;
  let home: string | null = null;
  let adminUrl: string;
  if (process.env['TEST_DATABASE_URL']) {
    adminUrl = process.env['TEST_DATABASE_URL'];
  } else {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-test-'));
    fs.chmodSync(home, 0o755);
    embedded = await startEmbeddedPostgres({ home, database: 'postgres', maxConnections: 400 });
    adminUrl = embedded.url;
  }

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();

  const templateUrl = withDatabase(adminUrl, TEMPLATE_DATABASE);
  const runtime = await createRuntime(loadConfig({}, { databaseUrl: templateUrl }), { queue: true });
  await runtime.close();

  project.provide('canonAdminUrl', adminUrl);
  project.provide('canonTemplate', TEMPLATE_DATABASE);

  return async () => {
    if (!embedded) {
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`).catch(() => undefined);
      await cleanup.end();
    }
    await embedded?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
