export { createCanonMcpServer, SERVER_INFO } from './server.js';
export { serveStdio } from './stdio.js';
export { runtimePort } from './runtime-port.js';
export { httpPort, RemoteProblem } from './http-port.js';
export type { CanonPort, SubjectCounts, MemoriesAt } from './port.js';
export { FRAMING, FRAMING_LINE } from './framing.js';
export { RememberArgs, rememberKey, rememberEpisode, decisionOf, DECISIONS, DECISION_MEANING, MCP_SOURCE, type Decision } from './remember.js';
