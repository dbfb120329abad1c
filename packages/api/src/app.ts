import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { CanonError, LIMITS, invalidInput } from '@canon/core';
import { isUnavailable, log, type Logger, type Runtime } from '@canon/runtime';
import { requireKey, type AppEnv } from './auth.js';
import { problem, problemFromError } from './problem.js';
import { requestLog } from './request-log.js';
import { jsonGuard, readsBody, urlGuard } from './door.js';
import { jsonAsBytes } from './json-bytes.js';
import { episodeRoutes } from './routes/episodes.js';
import { healthRoutes } from './routes/health.js';
import { compileRoutes } from './routes/compile.js';
import { memoryRoutes } from './routes/memories.js';
import { inspectorRoutes } from './inspector/routes.js';
import { operationRoutes } from './routes/operations.js';
import { swaggerUI } from '@hono/swagger-ui';
import { proposalRoutes } from './routes/proposals.js';
import { linkRoutes } from './routes/links.js';
import { conflictRoutes } from './routes/conflicts.js';
import { policyRoutes } from './routes/policies.js';
import { erasureRoutes } from './routes/erasure.js';
import { searchRoutes } from './routes/search.js';
import { contextRoutes } from './routes/context.js';
import { secretRoutes } from './routes/secrets.js';
import { connectorRoutes } from './routes/connectors.js';
import { exportRoutes } from './routes/export.js';
import { changeRoutes } from './routes/changes.js';
import { webhookRoutes } from './routes/webhooks.js';

export interface AppOptions {
  /** Called with unexpected errors (500s); the response never carries their details. */
  onInternalError?: (err: unknown) => void;
  /** Where request lines go (default: the process's logger, `log()`). */
  logger?: Logger;
  /** Liveness for `/healthz`: false when the process cannot recover by itself (default: always live). */
  liveness?: () => { live: boolean; reason?: string };
  /** Called when a request failed because the database could not be reached (it answered 503). */
  onUnavailable?: (err: unknown) => void;
}

/** The HTTP API as a Hono app; `app.request()` exercises it with no port opened. */
export function createApp(runtime: Runtime, options: AppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw invalidInput(result.error);
    },
  });

  const logger = () => options.logger ?? log();
  app.onError((err, c) => {
    if (isUnavailable(err)) options.onUnavailable?.(err);
    else if (!(err instanceof CanonError)) {
      logger().error({ event: 'internal_error', request_id: c.get('requestId'), err }, 'internal error');
      options.onInternalError?.(err);
    }
    return problemFromError(c, err);
  });
  app.notFound((c) => problem(c, 'not_found', `no route ${c.req.method} ${c.req.path}`));

  app.use('*', requestLog(logger));
  app.use('*', jsonAsBytes);
  app.use('*', urlGuard);
  healthRoutes(app, runtime, options.liveness);

  // An import is NDJSON of any length, read a line at a time with bounds of its own (read-ndjson.ts).
  // A GET's body is never read, so never bounded: asked for it, the Node adapter builds a whole
  // fetch Request to answer (0.1 ms of every read).
  const jsonBody = (c: { req: { path: string; method: string } }) => readsBody(c.req.method) && c.req.path !== '/v1/import';
  const jsonLimit = bodyLimit({
    maxSize: LIMITS.requestBytes,
    onError: (c) => problem(c, 'payload_too_large', `the body is larger than ${LIMITS.requestBytes} bytes`),
  });
  app.use('/v1/*', (c, next) => (jsonBody(c) ? jsonLimit(c, next) : next()));
  app.use('/v1/*', requireKey(runtime));
  app.use('/v1/*', (c, next) => (jsonBody(c) ? jsonGuard(c, next) : next()));
  episodeRoutes(app, runtime);
  operationRoutes(app, runtime);
  compileRoutes(app, runtime);
  memoryRoutes(app, runtime);
  proposalRoutes(app, runtime);
  linkRoutes(app, runtime);
  conflictRoutes(app, runtime);
  policyRoutes(app, runtime);
  erasureRoutes(app, runtime);
  searchRoutes(app, runtime);
  contextRoutes(app, runtime);
  secretRoutes(app, runtime);
  connectorRoutes(app, runtime);
  exportRoutes(app, runtime);
  changeRoutes(app, runtime);
  webhookRoutes(app, runtime);
  // People's view (HTML): Bearer key or the login form's HttpOnly cookie; see inspector/auth.ts.
  app.route('/inspect', inspectorRoutes(runtime));

  // The rendered reference: a page that loads its script from a CDN and reads /openapi.json.
  app.get('/docs', swaggerUI({ url: '/openapi.json', title: 'Canon API' }));
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Canon',
      version: '1',
      description:
        'Compiled memory for agents: an append-only episode log and the facts derived from it.\n\n' +
        `Limits on everything a client sends (400 validation naming the field, 415 for a body that is not JSON): a body of at most ${LIMITS.requestBytes} bytes, ` +
        `nested at most ${LIMITS.jsonDepth} levels; an episode body of at most ${LIMITS.episodeBodyBytes} bytes, a claim value of at most ${LIMITS.valueBytes} bytes as JSON, ` +
        `${LIMITS.batchSize} episodes per batch, ${LIMITS.claimsPerEpisode} claims per episode; every string (body, path, query) well-formed Unicode without U+0000.`,
    },
  });
  return app;
}
