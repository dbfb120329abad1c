export { createCanonMcpServer, SERVER_INFO } from './server.js';
export { serveStdio } from './stdio.js';
export { FRAMING, FRAMING_LINE } from './framing.js';
export { RememberArgs, rememberKey, rememberEpisode, decisionOf, DECISIONS, DECISION_MEANING, MCP_SOURCE, type Decision } from './remember.js';
