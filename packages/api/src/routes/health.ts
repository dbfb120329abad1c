import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import type { AppEnv } from '../auth.js';

export function healthRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime): void {
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', async (c) => {
    const ready = await runtime.readiness();
    const ok = ready.database && ready.queue;
    return c.json({ ok, ...ready }, ok ? 200 : 503);
  });
  app.get('/metrics', async (c) => c.text(await runtime.metrics(), 200, { 'content-type': 'text/plain; version=0.0.4' }));
}
