export {
  GIT_SOURCE,
  GitConfig,
  GitCursor,
  GIT_PREDICATES,
  GitHistoryRewrittenError,
  commitToEpisodes,
  createGitConnector,
  gitConnector,
  type GitCommitItem,
} from './connector.js';
export { parsePackageJson, diffPackage, DEPENDENCY_SECTIONS, type PackageFacts, type DependencySection } from './package-diff.js';
export { ownerNameFromRemote, resolveRepoId, type FirstParentCommit, type PackageChange } from './history.js';
