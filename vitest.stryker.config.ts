import { defineConfig } from 'vitest/config';

// Stryker's test run (stryker.config.json): the unit, property and integration tests (the http, grpc, express
// and fastify ones on loopback take a second each). Left out: tests that need a real redis-server (the second
// run's), tests of the built package (a mutant of the sources never reaches it: docs blocks, examples, the
// package's entries, optional peers, the JSON Schema file), whole lab runs (they cover nearly every line, so
// every mutant would pay for a 20 s lab run), the bench, the soak and the 100,000-call leak run.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      'test/integrations/redis/**',
      'test/reliability/redis*.test.ts',
      'test/package.test.ts',
      'test/docs/**',
      'test/examples.test.ts',
      'test/integrations/entries.test.ts',
      'test/integrations/optional-peers.test.ts',
      'test/config/json-schema.test.ts',
      'test/lab/**',
      'test/bench/**',
      'test/reliability/soak*.test.ts',
      'test/lib/leaks.test.ts',
      'node_modules/**',
    ],
    // the dry run measures coverage per test on a busy machine: a slow property may need more than the unit suite gives it
    testTimeout: 120_000,
    setupFiles: ['test/helpers/fuzz.ts'],
  },
});
