// Runs the core's pure tests alone: no database, no global setup.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/core/src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
