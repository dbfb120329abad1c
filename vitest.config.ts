import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests import the packages' TypeScript sources (the `source` export condition), so an edit is
// tested without a build; processes a test spawns run the built code, which the global setup
// brings up to date first.
const conditions = ['source', ...defaultServerConditions];

// CI's canary: the same command and configuration as `npm test`, run on one test that must
// fail, proves that a failing test fails the run. It lives outside the suite's globs.
const canary = process.env['CANON_TEST_CANARY'] === '1';

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // The environment that loads the global setup.
  environments: { __vitest__: { resolve: { conditions } } },
  test: {
    include: canary ? ['test/canary/*.canary.ts'] : ['packages/*/src/**/*.test.ts', 'connectors/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['packages/testing/src/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers than that only adds contention on the shared PostgreSQL.
    maxWorkers: 2,
    pool: 'forks',
  },
});
