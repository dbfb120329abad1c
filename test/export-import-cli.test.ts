import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnLoopback, type Served } from '@canon/api';
import { runCanon, startTestCanon, type TestCanon } from '@canon/testing';

// `canon export` and `canon import` as a user runs them: in process on a database, and through a
// server (CANON_URL), with the file checked whole before anything is written.

let source: TestCanon;
let target: TestCanon;
let server: Served;
let home: string;
let sourceEnv: NodeJS.ProcessEnv;
let targetEnv: NodeJS.ProcessEnv;

const ep = (key: string, subject: string, value: string) => ({
  idempotency_key: key,
  subject,
  occurred_at: '2026-03-01T09:00:00Z',
  kind: 'claim',
  body: { claims: [{ predicate: 'plan', value }] },
});

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-export-'));
  source = await startTestCanon({ queue: false });
  target = await startTestCanon({ queue: false });
  const owner = await source.key('owner');
  await source.runtime.ingest(owner.principal, [ep('c-1', 'customer:a', 'gold'), ep('c-2', 'customer:b', 'silver')], { compile: 'wait' });
  const base = { ...process.env, CANON_HOME: home, CANON_URL: '', CANON_COMPILE_DEBOUNCE_SECONDS: '3600' };
  sourceEnv = { ...base, DATABASE_URL: source.db.url, CANON_API_KEY: owner.key };
  targetEnv = { ...base, DATABASE_URL: target.db.url, CANON_API_KEY: (await target.key('owner')).key };
  server = await serveOnLoopback(target.app);
});
afterAll(async () => {
  await server.close();
  await source.close();
  await target.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('canon export and canon import', () => {
  it('exports to a file, refuses a tampered or truncated copy by its line, and imports in process, then again through a server', async () => {
    const file = path.join(home, 'log.jsonl');
    const exported = await runCanon(sourceEnv, 'export', '--all', '--output', file);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'header', format: 'canon-export' });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'manifest', counts: { episodes: 2 } });

    const tampered = path.join(home, 'tampered.jsonl');
    fs.writeFileSync(tampered, lines.map((l, i) => (i === 1 ? l.replace('gold', 'lead') : l)).join('\n'));
    const refused = await runCanon(targetEnv, 'import', tampered);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('line 2:');
    const truncated = path.join(home, 'truncated.jsonl');
    fs.writeFileSync(truncated, lines.slice(0, -1).join('\n'));
    const short = await runCanon(targetEnv, 'import', truncated);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('truncated');

    const imported = await runCanon(targetEnv, 'import', file, '--json');
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ ok: true, created: 2, duplicates: 0 });

    const remoteEnv = { ...targetEnv, CANON_URL: server.url, DATABASE_URL: '' };
    const again = await runCanon(remoteEnv, 'import', file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('created 0, duplicates 2');
    expect(again.stdout).toContain('2 of 2 subjects match');
    const streamed = await runCanon(remoteEnv, 'export', '--subject', 'customer:a');
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(streamed.stdout.trimEnd().split('\n').filter((l) => l.includes('"type":"episode"'))).toHaveLength(1);
  });
});
