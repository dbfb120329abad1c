/**
 * The bounds of a context request, one place for every surface: HTTP and the runtime validate
 * with them, and MCP's tool schema says the same, so a task one accepts the other does too.
 * A subpath of its own so MCP and the CLI read them without loading the core.
 */
export const CONTEXT_TASK_CHARS = 10_000;
export const MAX_CONTEXT_TOKENS = 100_000;
