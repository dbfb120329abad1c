export { createApp, type AppOptions } from './app.js';
export { problemTypeUri, type HttpProblemType } from './problem.js';
export type { AppEnv } from './auth.js';
export { requestId } from './request-log.js';
export { serveOnLoopback, type Served } from './loopback.js';
