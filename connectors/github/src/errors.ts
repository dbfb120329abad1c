import { ConnectorError } from '@canon/connector-kit';

/** A GitHub API failure, with a one-line message naming what to fix. */
export class GithubApiError extends ConnectorError {
  override readonly name = 'GithubApiError';
  readonly status: number;

  constructor(status: number, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(`github_${status}`, message, options);
    this.status = status;
  }
}

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

function isRequestError(error: unknown): error is RequestErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';
}

/** Details of a 422 body: `Validation Failed: Label.color invalid`. */
function validationDetail(data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const { message, errors } = data as { message?: unknown; errors?: unknown };
  const parts = Array.isArray(errors)
    ? errors.map((e: { resource?: string; field?: string; code?: string; message?: string }) =>
        e.message ?? [[e.resource, e.field].filter(Boolean).join('.'), e.code].filter(Boolean).join(' '),
      )
    : [];
  return [typeof message === 'string' ? message : '', parts.join(', ')].filter(Boolean).join(': ');
}

/**
 * Translates an octokit failure (after its own retries) into a GithubApiError. 5xx and
 * rate-limit exhaustion are transient: the runner may try again later from its cursor.
 */
export function toGithubError(error: unknown, repo: string, baseUrl = 'https://api.github.com'): unknown {
  if (!isRequestError(error) || error.status < 400) return error;
  const { status } = error;
  // No answer at all: octokit calls a connection that failed a 500. A host that refuses or does not
  // resolve is a setting to fix, not GitHub failing: said at once, not retried for minutes.
  if (status === 500 && error.response === undefined) {
    const code = networkCode(error);
    const unreachable = code === 'ECONNREFUSED' || code === 'ENOTFOUND';
    return new GithubApiError(0, `could not reach GitHub at ${baseUrl} (${code ?? 'no answer'}): check the connector's baseUrl and the network${unreachable ? '' : ', then try again'}`, {
      transient: !unreachable,
      cause: error,
    });
  }
  const headers = error.response?.headers ?? {};
  switch (status) {
    case 401:
      return new GithubApiError(401, 'GitHub refused the token (401): set GITHUB_TOKEN (or the connector token) to a valid token', { cause: error });
    case 403:
    case 429:
      if (String(headers['x-ratelimit-remaining']) === '0' || status === 429) {
        return new GithubApiError(status, `GitHub rate limit exhausted (${status}): wait for the reset or use a token with a higher limit`, {
          transient: true,
          cause: error,
        });
      }
      return new GithubApiError(403, `GitHub denied access to ${repo} (403): the token needs read access to its issues and pull requests`, {
        cause: error,
      });
    case 404:
      return new GithubApiError(404, `repository ${repo} not found (404): check the owner/name, or use a token that can see it`, { cause: error });
    case 422: {
      const detail = validationDetail(error.response?.data);
      return new GithubApiError(422, `GitHub rejected the request for ${repo} (422${detail ? ` ${detail}` : ''}): check the connector's since and repo settings`, {
        cause: error,
      });
    }
    default:
      if (status >= 500) {
        return new GithubApiError(status, `GitHub failed with ${status} for ${repo} after retries: try again later`, { transient: true, cause: error });
      }
      return new GithubApiError(status, `GitHub answered ${status} for ${repo}: ${error.message}`, { cause: error });
  }
}

/** The system error code behind a failed request (fetch wraps it in one or two causes). */
function networkCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(code)) return code;
  }
  return null;
}
