import type { MiddlewareHandler } from 'hono';
import type { Principal, Runtime } from '@canon/runtime';

export type AppEnv = { Variables: { principal: Principal; requestId: string } };

/** Every /v1 request: the bearer key decides workspace, role and user. */
export function requireKey(runtime: Runtime): MiddlewareHandler<AppEnv> {
  return async function requireKey(c, next) {
    const header = c.req.header('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    c.set('principal', await runtime.authenticate(match?.[1]));
    await next();
  };
}
