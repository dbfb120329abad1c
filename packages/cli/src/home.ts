import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '@canon/runtime';

/** What a running `canon start` records in CANON_HOME so other commands find it. */
export interface ServerRecord {
  url: string;
  pid: number;
  /** Where its database is: its CANON_HOME's embedded one, or DATABASE_URL's (absent in an older record). */
  database?: 'embedded' | 'external';
}

export const serverRecordPath = (config: Config) => path.join(config.home, 'server.json');
export const devKeyPath = (config: Config) => path.join(config.home, 'dev-key');

export function writeServerRecord(config: Config, record: ServerRecord): void {
  fs.mkdirSync(config.home, { recursive: true });
  fs.writeFileSync(serverRecordPath(config), `${JSON.stringify(record)}\n`);
}

export function removeServerRecord(config: Config): void {
  fs.rmSync(serverRecordPath(config), { force: true });
}

/** The server of this CANON_HOME, when one is running. */
export function runningServer(config: Config): ServerRecord | null {
  try {
    const record = JSON.parse(fs.readFileSync(serverRecordPath(config), 'utf8')) as ServerRecord;
    process.kill(record.pid, 0);
    return record;
  } catch {
    return null;
  }
}

export function writeDevKey(config: Config, key: string): void {
  fs.mkdirSync(config.home, { recursive: true });
  fs.writeFileSync(devKeyPath(config), `${key}\n`, { mode: 0o600 });
  fs.chmodSync(devKeyPath(config), 0o600);
}

export function readDevKey(config: Config): string | null {
  try {
    return fs.readFileSync(devKeyPath(config), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
