import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@canon/core';
import { createRuntime, loadConfig } from '@canon/runtime';
import { actorName, createTestDatabase, deploymentStory, storyActors, type TestDatabase, runCanon } from '@canon/testing';


let db: TestDatabase;
let home: string;
let env: NodeJS.ProcessEnv;

const canon = (...args: string[]) => runCanon(env, ...args);

/** The lines of one section, from its title to the blank line that ends it. */
function section(out: string, title: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${title} (`));
  expect(start, `section ${title}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start, end === -1 ? undefined : end);
}

beforeAll(async () => {
  db = await createTestDatabase();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'canon-inspect-'));
  const runtime = await createRuntime(loadConfig({}, { databaseUrl: db.url }), { queue: false, migrate: false });
  const principals = new Map<string, Awaited<ReturnType<typeof runtime.authenticate>>>();
  for (const role of ['agent', 'member', 'maintainer', 'reader'] as const) {
    principals.set(role, await runtime.authenticate((await runtime.createKey({ workspace: 'default', role })).key));
  }
  for (const a of storyActors(deploymentStory())) {
    principals.set(actorName(a), await runtime.authenticate((await runtime.createKey({ workspace: 'default', role: a.role, user: a.user })).key));
  }
  for (const step of deploymentStory()) {
    await runtime.ingest(principals.get(actorName(step))!, [{ ...step.episode, source_ref: `https://example.test/${String(step.episode['idempotency_key'])}` }], { compile: 'wait' });
  }
  const { key } = await runtime.createKey({ workspace: 'default', role: 'reader' });
  await runtime.close();
  env = { ...process.env, DATABASE_URL: db.url, CANON_HOME: home, CANON_API_KEY: key };
});
afterAll(async () => {
  await db.drop();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('canon inspect in the terminal', () => {
  let out: string;
  beforeAll(async () => {
    const r = await canon('inspect', 'service:billing');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    out = r.stdout;
  });

  it('groups the episodes by source, with what each said and where to check it', () => {
    const episodes = section(out, 'Episodes by source');
    expect(episodes[0]).toBe('Episodes by source (11)');
    expect(episodes).toContain('  api (9)');
    expect(episodes).toContain('  mcp (2)');
    expect(episodes.join('\n')).toMatch(/2024-05-06T12:00:00.000Z {2}x1 {2}claim {2}deploy day \{env: staging\} = "Thursday" from 2024-05-13T00:00:00.000Z {2}<https:\/\/example.test\/x1>/);
  });

  it('shows the current memories, the superseded value with when and by what, and the overruled claim', () => {
    const current = section(out, 'Current memories');
    expect(current[0]).toBe('Current memories (3)');
    expect(current.join('\n')).toMatch(/deploy day \{env: staging\}: "Thursday" since 2024-05-13T00:00:00.000Z/);
    expect(current.join('\n')).toMatch(/deploy day \{env: production\}: "Friday"/);
    expect(current.join('\n')).toMatch(/owning team: "payments"/);

    const superseded = section(out, 'Superseded values');
    expect(superseded).toHaveLength(2);
    expect(superseded[1]).toMatch(/deploy day \{env: staging\}: "Tuesday" from 2024-04-20T00:00:00.000Z, replaced at 2024-05-13T00:00:00.000Z by change api\/x1#0 → "Thursday"/);

    const overruled = section(out, 'Overruled claims');
    expect(overruled[1]).toMatch(/owning team: "billing-core" from api\/o2#0 \(agent\) — .*needs standing 40/);
  });

  it('lists the open conflict with both sides and every decision with its reason', () => {
    const conflicts = section(out, 'Open conflicts');
    expect(conflicts[0]).toBe('Open conflicts (1)');
    expect(conflicts[1]).toMatch(/release freeze day: "Wednesday" \(api\/f1\) vs "Friday" \(mcp\/f2\)/);

    const decisions = section(out, 'Decisions');
    expect(decisions[0]).toBe('Decisions (11)');
    expect(decisions.join('\n')).toMatch(/deploy day \{env: staging\} {2}api\/x1#0 {2}changes api\/\w+#0: .*ends "Tuesday" at 2024-05-13/);
    expect(decisions.join('\n')).toMatch(/release freeze day {2}mcp\/f2#0 {2}disputes api\/f1#0: .*disputes "Wednesday"/);
    expect(decisions.join('\n')).toMatch(/deploy day \{env: staging\} {2}api\/m1#0 {2}\w+.*: .*conditions/);
  });

  it('prints the same story as JSON', async () => {
    const r = await canon('inspect', 'service:billing', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.subject).toBe('service:billing');
    expect(report.sources.map((s: { source: string; episodes: unknown[] }) => [s.source, s.episodes.length])).toEqual([
      ['api', 9],
      ['mcp', 2],
    ]);
    expect(report.superseded).toEqual([expect.objectContaining({ value: 'Tuesday', how: 'change', by_value: 'Thursday', replaced_at: '2024-05-13T00:00:00.000Z' })]);
    expect(report.overruled).toEqual([expect.objectContaining({ value: 'billing-core', predicate: 'owning team' })]);
    expect(report.conflicts[0].sides.map((s: { value: string }) => s.value)).toEqual(['Wednesday', 'Friday']);
    expect(report.decisions).toHaveLength(11);
  });

  it('sees the subject as of an earlier instant', async () => {
    const r = await canon('inspect', 'service:billing', '--as-of', '2024-05-07T00:00:00Z');
    expect(section(r.stdout, 'Current memories').join('\n')).toMatch(/deploy day \{env: staging\}: "Tuesday" if "only after the integration tests pass" since .*; then "Thursday" from 2024-05-13/);
  });
});
