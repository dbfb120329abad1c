export {
  WORKSPACE_SOURCE,
  WorkspaceConfig,
  WorkspaceCursor,
  WORKSPACE_PREDICATES,
  DEFAULT_SECRET_FILES,
  fileSubject,
  workspaceKey,
  workspaceToEpisodes,
  createWorkspaceConnector,
  workspaceConnector,
  type WorkspaceItem,
} from './connector.js';
export { walk, type WalkEntry, type WalkResult } from './walk.js';
