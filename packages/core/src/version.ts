/**
 * Versions stamped on processed markers. Bump COMPILER_VERSION whenever the fold's output can
 * change for the same claims, and EXTRACTOR_VERSION whenever extraction can change for the same
 * episode: the compile pipeline rebuilds the subjects whose markers carry an older version.
 */
export const COMPILER_VERSION = 'canon-compiler/27';
export const EXTRACTOR_VERSION = 'canon-extractor/6';
