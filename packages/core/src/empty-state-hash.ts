/**
 * The state hash of an empty subject. A module of its own so that a client comparing a report's
 * hash with it (`canon verify` against a remote server) loads this line, not the compiler.
 */
export const EMPTY_STATE_HASH = '0'.repeat(64);
