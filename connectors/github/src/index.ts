export { GithubConfig, GithubCursor, createGithubConnector, githubConnector } from './connector.js';
export {
  GITHUB_SOURCE,
  GITHUB_PREDICATES,
  projectIssue,
  issueKey,
  issueSubject,
  issueToEpisodes,
  type GithubIssue,
  type GithubIssueItem,
  type IssueProjection,
} from './mapping.js';
export { GithubApiError, toGithubError } from './errors.js';
