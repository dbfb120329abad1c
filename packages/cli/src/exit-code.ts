import { CanonError } from '@canon/core/errors';

/** Exit codes: 1 failure, 2 invalid input or conflict, 3 not authorized. */
export function exitCodeOf(err: unknown): number {
  if (!(err instanceof CanonError)) return 1;
  if (err.type === 'unauthorized' || err.type === 'forbidden') return 3;
  if (err.type === 'validation' || err.type === 'malformed_json' || err.type === 'key_conflict' || err.type === 'not_found' || err.type === 'conflict' || err.type === 'cursor_moved' || err.type === 'secret_refused' || err.type === 'export_invalid' || err.type === 'policies_differ' || err.type === 'workspace_mismatch') return 2;
  return 1;
}
