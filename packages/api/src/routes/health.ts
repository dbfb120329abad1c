import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@canon/runtime';
import { bearerToken, type AppEnv } from '../auth.js';

/**
 * `/healthz` is liveness: it fails only when this process cannot get well by itself (the
 * embedded PostgreSQL it owns could not be restarted), so restarting the process is the cure.
 * `/readyz` is readiness: it fails while a dependency is missing — the database, the queue —
 * and names what is missing; the process recovers from that without a restart.
 */
export function healthRoutes(app: OpenAPIHono<AppEnv>, runtime: Runtime, liveness?: () => { live: boolean; reason?: string }): void {
  app.get('/healthz', (c) => {
    const state = liveness?.() ?? { live: true };
    return c.json(state.live ? { ok: true } : { ok: false, reason: state.reason ?? 'not live' }, state.live ? 200 : 503);
  });
  app.get('/readyz', async (c) => {
    const ready = await runtime.readiness();
    const missing = (['database', 'queue'] as const).filter((what) => !ready[what]);
    const ok = missing.length === 0;
    return c.json({ ok, ...ready, missing }, ok ? 200 : 503);
  });
  // A key sees its workspace's numbers; without one only when the operator made the totals
  // public (CANON_METRICS_PUBLIC=1), since queue and pending counts say how busy every tenant is.
  app.get('/metrics', async (c) => {
    const header = c.req.header('authorization');
    const principal = header || !runtime.config.metricsPublic ? await runtime.authenticate(bearerToken(header)) : null;
    return c.text(await runtime.metrics(principal), 200, { 'content-type': 'text/plain; version=0.0.4' });
  });
}
