import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@canon/core';
import { actorName, deploymentStory, startTestCanon, storyActors, type TestCanon } from '@canon/testing';

const ARTIFACTS = path.resolve('test/artifacts');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let canon: TestCanon;
let server: ServerType;
let base: string;
let browser: Browser;
const keys = new Map<string, string>();

beforeAll(async () => {
  canon = await startTestCanon({ queue: false });
  for (const role of ['agent', 'member', 'maintainer', 'reader'] as const) keys.set(role, (await canon.key(role)).key);
  for (const a of storyActors(deploymentStory())) keys.set(actorName(a), (await canon.key(a.role, { user: a.user })).key);
  for (const step of deploymentStory()) {
    const principal = await canon.runtime.authenticate(keys.get(actorName(step)));
    const episode = { ...step.episode, source_ref: `https://example.test/log/${String(step.episode['idempotency_key'])}` };
    await canon.runtime.ingest(principal, [episode], { compile: 'wait' });
  }
  // A subject with more memories than one page holds.
  const claims = Array.from({ length: 120 }, (_, i) => ({ predicate: `setting ${String(i).padStart(3, '0')}`, value: i }));
  await canon.runtime.ingest(await canon.runtime.authenticate(keys.get('member')), [{ idempotency_key: 'many', subject: 'service:many', kind: 'claim', body: { claims } }], { compile: 'wait' });

  server = serve({ fetch: canon.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await canon?.close();
});

async function signIn(role: Role) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/inspect`);
  expect(new URL(page.url()).pathname).toBe('/inspect/login');
  await page.getByLabel('API key').fill(keys.get(role)!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/inspect`);
  return { context, page };
}

describe('the web inspector', () => {
  it('answers a Bearer key and sends a browser without one to the login form', async () => {
    const anonymous = await fetch(`${base}/inspect`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/inspect/login');
    const withKey = await fetch(`${base}/inspect`, { headers: { authorization: `Bearer ${keys.get('reader')}` } });
    expect(withKey.status).toBe(200);
    expect(await withKey.text()).toContain('service:billing');
    const badKey = await fetch(`${base}/inspect`, { headers: { authorization: 'Bearer canon_nope' } });
    expect(badKey.status).toBe(401);
  });

  it('signs in with a key kept in an HttpOnly, SameSite=Strict cookie and lists the subjects with counts', async () => {
    const { context, page } = await signIn('reader');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'canon_inspect_key', httpOnly: true, sameSite: 'Strict', path: '/inspect' });
    const row = page.getByRole('row', { name: /service:billing/ });
    await expect(row.getByRole('cell').allTextContents()).resolves.toEqual(['11', '4', '0', '1']);
    await context.close();
  });

  it('draws each memory over valid time: the superseded value grey, the conflict marked, evidence linked', async () => {
    const { context, page } = await signIn('maintainer');
    await page.getByRole('link', { name: 'service:billing' }).click();
    await page.waitForURL(`${base}/inspect/subjects/service%3Abilling`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('service:billing');
    await page.getByLabel('View as of (ISO 8601, empty for now)').fill('2024-05-14T00:00:00Z');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/as_of=2024-05-14/);
    expect(await page.getByText(/^At 2024-05-14T00:00:00.000Z: 4 memories/).count()).toBe(1);

    const staging = page.locator('section.memory', { has: page.getByRole('heading', { name: /deploy day\s+\{env: staging\}/ }) });
    const chart = staging.getByRole('img', { name: /Values of deploy day over valid time/ });
    await chart.waitFor();
    // The top of the page down to the staging memory's chart and values: the README's picture.
    const box = (await staging.boundingBox())!;
    await page.screenshot({ path: path.join(ARTIFACTS, 'inspector-subject-top.png'), clip: { x: 0, y: 0, width: 1100, height: box.y + box.height + 16 }, fullPage: true });
    expect(await chart.locator('g.bar.superseded').getAttribute('data-value')).toBe('"Tuesday"');
    expect(await chart.locator('g.bar.in_force').getAttribute('data-value')).toBe('"Thursday"');
    expect(await chart.locator('desc').textContent()).toMatch(/"Tuesday": superseded by change, from 2024-04-20T00:00:00.000Z to 2024-05-13T00:00:00.000Z/);
    expect(await chart.locator('g.bar.superseded rect').getAttribute('fill')).toBe('#afb8c1');

    const freeze = page.locator('section.memory', { has: page.getByRole('heading', { name: /release freeze day/ }) });
    expect(await freeze.locator('svg g.bar.conflict').count()).toBe(2);

    await staging.getByText(/^Decisions \(\d+\)$/).click();
    const decision = staging.getByRole('row', { name: /^api\/x1#0 \(maintainer\) changes/ });
    expect(await decision.textContent()).toMatch(/changes.*ends "Tuesday" at 2024-05-13/s);
    expect(await decision.getByRole('link', { name: 'api/x1#0' }).getAttribute('href')).toBe('https://example.test/log/x1');

    const supersededList = page.getByRole('heading', { name: 'Superseded values on this page' });
    expect(await supersededList.count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'inspector-subject.png'), fullPage: true });
    await context.close();
  });

  it('pages a large subject 50 memories at a time', async () => {
    const first = await fetch(`${base}/inspect/subjects/service%3Amany`, { headers: { authorization: `Bearer ${keys.get('reader')}` } });
    const html = await first.text();
    expect(html.match(/<section class="memory"/g)).toHaveLength(50);
    expect(html).toContain('Page 1 of 3');
    expect(html).toContain('120 memories');
    const last = await (await fetch(`${base}/inspect/subjects/service%3Amany?page=3`, { headers: { authorization: `Bearer ${keys.get('reader')}` } })).text();
    expect(last.match(/<section class="memory"/g)).toHaveLength(20);
    expect(last).toContain('setting 119');
    expect(last).not.toContain('setting 000');
  });

  it('lets a reader see the conflict queue but offers no resolution form', async () => {
    const { context, page } = await signIn('reader');
    await page.getByRole('link', { name: 'Conflicts', exact: true }).click();
    expect(await page.getByRole('heading', { name: 'release freeze day' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Resolve conflict' }).count()).toBe(0);
    expect(await page.getByText(/Resolving needs standing 20; this key's role \(reader\) has 10/).count()).toBe(1);
    await context.close();
  });

  it('refuses a cross-site form post even with the cookie', async () => {
    const res = await fetch(`${base}/inspect/conflicts/anything/resolve`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: 'http://evil.test', 'content-type': 'application/x-www-form-urlencoded', cookie: `canon_inspect_key=${keys.get('maintainer')}` },
      body: 'value=%22Friday%22&reason=x',
    });
    expect(res.status).toBe(403);
  });

  it('resolves a conflict through the form as a maintainer', async () => {
    const { context, page } = await signIn('maintainer');
    await page.goto(`${base}/inspect/conflicts`);
    const conflict = page.locator('section.memory', { has: page.getByRole('heading', { name: 'release freeze day' }) });
    await conflict.getByRole('radio', { name: '"Friday"' }).check();
    await conflict.getByLabel('Reason (kept with the correction)').fill('The release calendar says Friday.');
    await conflict.getByRole('button', { name: 'Resolve conflict' }).click();
    await page.waitForURL(/\/inspect\/conflicts\?resolved=/);
    expect(await page.getByRole('status').textContent()).toBe('The conflict is resolved.');
    expect(await page.getByText('No open conflicts.').count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'inspector-resolved.png'), fullPage: true });

    const owner = await canon.runtime.authenticate(keys.get('maintainer'));
    const freeze = (await canon.runtime.memories(owner, 'service:billing')).memories.find((m) => m.predicate === 'release freeze day')!;
    expect(freeze.status).toBe('current');
    expect(freeze.current.map((v) => v.value)).toEqual(['Friday']);

    await page.goto(`${base}/inspect/subjects/service%3Abilling`);
    const section = page.locator('section.memory', { has: page.getByRole('heading', { name: /release freeze day/ }) });
    expect(await section.locator('svg g.bar.conflict').count()).toBe(0);
    expect(await section.locator('.badge.current').count()).toBe(1);
    await context.close();
  });
});
