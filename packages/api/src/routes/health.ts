import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import { bearerToken, type AppEnv } from '../auth.js';

export function healthRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', async (c) => {
    const ready = await runtime.readiness();
    const ok = ready.database && ready.queue;
    return c.json({ ok, ...ready }, ok ? 200 : 503);
  });
  // A key sees its workspace's numbers; without one only when the operator made the totals
  // public (CANON_METRICS_PUBLIC=1), since queue and pending counts say how busy every tenant is.
  app.get('/metrics', async (c) => {
    const header = c.req.header('authorization');
    const principal = header || !runtime.config.metricsPublic ? await runtime.authenticate(bearerToken(header)) : null;
    return c.text(await runtime.metrics(principal), 200, { 'content-type': 'text/plain; version=0.0.4' });
  });
}
