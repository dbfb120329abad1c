import type { z } from 'zod';

/**
 * The typed errors of the domain. Each carries a stable `type` slug that the API turns into
 * an `application/problem+json` `type` and the CLI into a one-line message; HTTP status codes
 * are chosen once, in the API, not here.
 */
export type ProblemType =
  | 'validation'
  | 'malformed_json'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'key_conflict'
  | 'precondition_failed'
  | 'conflict'
  | 'cursor_moved'
  | 'busy'
  | 'unavailable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'secret_refused'
  | 'export_invalid'
  | 'policies_differ'
  | 'workspace_mismatch';

export class CanonError extends Error {
  readonly type: ProblemType;
  readonly details: Record<string, unknown>;
  constructor(type: ProblemType, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.type = type;
    this.details = details;
  }
}

export interface ItemIssue {
  index: number;
  path: string;
  message: string;
}

export class ValidationError extends CanonError {
  readonly issues: ItemIssue[];
  /**
   * Without `issues`, the message is the one issue: about the field it starts with (`after: not
   * a cursor …`, `If-Match: …`), or about the body as a whole — so that every validation problem
   * lists what it is about, whichever check refused it.
   */
  constructor(message: string, issues: ItemIssue[] = [], options?: ErrorOptions) {
    const listed = issues.length > 0 ? issues : [issueOfMessage(message)];
    super('validation', message, { issues: listed }, options);
    this.issues = listed;
  }
}

function issueOfMessage(message: string): ItemIssue {
  const m = /^([A-Za-z_][\w.-]*): (.+)$/s.exec(message);
  return m ? { index: 0, path: m[1]!, message: m[2]! } : { index: 0, path: 'body', message };
}

/** What a schema's failed parse says: each issue with the path of the field it is about. */
interface FailedParse {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;
}

/**
 * A failed parse as every boundary answers it: one message naming each field, and the same issues
 * listed, so a client that reads `issues` finds the field whichever route it called. An issue
 * about the input as a whole is about `where` (`body`, `query`); `prefix` places a nested input
 * (`policies`) in the request it came in.
 */
export function invalidInput(failed: FailedParse, where = 'body', prefix = ''): ValidationError {
  const issues = failed.issues.map((i) => ({ index: 0, path: [prefix, i.path.map(String).join('.')].filter(Boolean).join('.') || where, message: i.message }));
  return new ValidationError(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
}

/** `schema`'s parse of `raw`, or the `ValidationError` of `invalidInput`. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, where = 'body', prefix = ''): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error, where, prefix);
  return parsed.data;
}

export class UnauthorizedError extends CanonError {
  constructor(message = 'a valid API key is required (Authorization: Bearer <key>)') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends CanonError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class NotFoundError extends CanonError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('not_found', message, details);
  }
}

/** The same idempotency key was posted with a different envelope: a key names one event. */
export class KeyConflictError extends CanonError {
  constructor(
    readonly conflicts: Array<{ index: number; source: string; idempotency_key: string; episode_id: string | null; taken?: true }>,
  ) {
    const first = conflicts[0];
    super(
      'key_conflict',
      first
        ? first.taken
          ? // Another user's personal episode: the caller learns the key is taken, nothing of it.
            `idempotency key ${JSON.stringify(first.idempotency_key)} of source ${JSON.stringify(first.source)} is taken`
          : `idempotency key ${JSON.stringify(first.idempotency_key)} of source ${JSON.stringify(first.source)} already names a different episode` +
            (first.episode_id ? ` (${first.episode_id})` : ' in this batch')
        : 'key conflict',
      { conflicts },
    );
  }
}

/** A conditional write whose expected revision is stale. */
export class PreconditionFailedError extends CanonError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('precondition_failed', message, details);
  }
}

export class BusyError extends CanonError {
  constructor(message: string, readonly retryAfterSeconds = 1) {
    super('busy', message, { retry_after: retryAfterSeconds });
  }
}

/**
 * A connector instance's cursor is no longer the one a run read: another run of the same
 * instance committed in between. The batch was not stored; the run starts again from the
 * cursor now in force.
 */
export class CursorConflictError extends CanonError {
  constructor(instanceId: string) {
    super('cursor_moved', `the cursor of connector instance ${instanceId} was moved by another run; this batch was not stored (run it again)`, {
      instance_id: instanceId,
    });
  }
}

/**
 * The database (or the queue on it) cannot be reached right now: nothing was done, and the same
 * request may succeed after `retryAfterSeconds`. Not the caller's fault and not a bug.
 */
export class UnavailableError extends CanonError {
  constructor(message = 'the database is unavailable; retry shortly', readonly retryAfterSeconds = 2, options?: ErrorOptions) {
    super('unavailable', message, { retry_after: retryAfterSeconds }, options);
  }
}

export class PayloadTooLargeError extends CanonError {
  constructor(message: string) {
    super('payload_too_large', message);
  }
}

/**
 * An item holding a secret, under a workspace policy of `secrets: "refuse"`: nothing of it is
 * stored. Names the rule and the field, never the secret.
 */
export class SecretRefusedError extends CanonError {
  constructor(readonly rule: string, readonly path: string) {
    super('secret_refused', `the episode holds a secret (rule ${rule}, at ${path}) and this workspace refuses secrets; nothing was stored`, { rule, path });
  }
}

/**
 * An export file (or stream) that is not a whole, untouched Canon export: a line that does not
 * parse, whose hash does not match its content, out of place, or a file that ends before its
 * manifest or disagrees with it. `line` is the 1-based line that fails (the last line read when
 * the file is short).
 */
export class ExportInvalidError extends CanonError {
  constructor(readonly line: number, message: string) {
    super('export_invalid', `line ${line}: ${message}`, { line });
  }
}

/** An import whose policies differ from the target workspace's own, without the flag that accepts it. */
export class PoliciesDifferError extends CanonError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('policies_differ', message, details);
  }
}

/** An import whose erasure tombstones are bound to another workspace id than the target's. */
export class WorkspaceMismatchError extends CanonError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('workspace_mismatch', message, details);
  }
}
