import { defineConfig } from 'vitest/config';

// Stryker's second run (stryker.redis.config.json): integrations/redis against a real redis-server, which each
// test file starts on loopback. The tests that spawn processes on the built package are left out: a
// mutant of the sources never reaches them.
export default defineConfig({
  test: {
    include: ['test/integrations/redis/**/*.test.ts', 'test/reliability/redis*.test.ts'],
    exclude: ['test/integrations/redis/processes.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
