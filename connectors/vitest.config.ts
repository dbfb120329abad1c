import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// The packages' TypeScript sources, not their build (see the root vitest.config.ts).
const conditions = ['source', ...defaultServerConditions];

// Connector tests need no database: no global setup, only the connectors' own files.
export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['connectors/*/src/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
