import { defineConfig } from 'vitest/config';

// CI's canary: the same command and configuration as `npm test`, run on one test that must
// fail, proves that a failing test fails the run. It lives outside the suite's globs.
const canary = process.env['CANON_TEST_CANARY'] === '1';

export default defineConfig({
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
