import { defineConfig } from 'vitest/config';

// Connector tests need no database: no global setup, only the connectors' own files.
export default defineConfig({
  test: {
    include: ['connectors/*/src/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
