// Runs the core's pure tests alone: no database, no global setup.
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// The packages' TypeScript sources, not their build (see the root vitest.config.ts).
const conditions = ['source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/core/src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
