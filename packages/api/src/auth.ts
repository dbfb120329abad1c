import type { MiddlewareHandler } from 'hono';
import type { Principal, Runtime } from '@canon/runtime';

export type AppEnv = {
  Variables: {
    principal: Principal;
    requestId: string;
    /** The request's JSON body as `jsonGuard` parsed it (unset: no body, or not through /v1). */
    json?: unknown;
  };
};

/** The key of an `Authorization: Bearer <key>` header, if it is one. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** Every /v1 request: the bearer key decides workspace, role and user. */
export function requireKey(runtime: Runtime): MiddlewareHandler<AppEnv> {
  return async function requireKey(c, next) {
    c.set('principal', await runtime.authenticate(bearerToken(c.req.header('authorization'))));
    await next();
  };
}
