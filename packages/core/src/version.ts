/**
 * Versions stamped on processed markers. Bump COMPILER_VERSION whenever the fold's output can
 * change for the same claims, and EXTRACTOR_VERSION whenever extraction can change for the same
 * episode. The compile pipeline rebuilds the subjects stamped with another COMPILER_VERSION, and
 * only those: a change of extraction bumps both, or stored subjects would keep the claims the
 * older extractor made while a rebuild (and `verify`) makes others.
 */
export const COMPILER_VERSION = 'canon-compiler/33';
export const EXTRACTOR_VERSION = 'canon-extractor/10';
