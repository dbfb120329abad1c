const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Ctrl-C or a SIGTERM during a command that does not handle the signal itself: stop the
 * embedded PostgreSQL this process started, then exit 128 + the signal's number. Commands that
 * handle it (`start`, `mcp`, `sync`) stop in their own order instead. Returns whether such an
 * interruption is under way, so the command's own failure (its database going away) is not
 * reported as an error.
 */
export function handleInterrupts(): () => boolean {
  let interrupted = false;
  for (const signal of Object.keys(EXIT_CODES) as Array<keyof typeof EXIT_CODES>) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1 || interrupted) return;
      interrupted = true;
      // The runtime is imported here, not at the top, so that `canon --help` does not load it.
      void import('@canon/runtime')
        .then((runtime) => runtime.stopEmbeddedServers())
        .finally(() => process.exit(EXIT_CODES[signal]));
    });
  }
  return () => interrupted;
}
