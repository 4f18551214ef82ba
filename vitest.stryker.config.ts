import { defineConfig } from 'vitest/config';

// Stryker's test run: the unit and property tests only. Left out: tests that need a real
// redis-server, the built package (docs blocks, examples, optional peers), whole lab runs
// (they cover nearly every line, so every mutant would pay for a 20 s lab run), the bench and the soak.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/lib/redis/**', 'test/package.test.ts', 'test/reliability/soak*.test.ts', 'test/reliability/redis*.test.ts', 'test/lib/leaks.test.ts',
      'test/lab/**', 'test/docs/**', 'test/examples.test.ts', 'test/bench/**', 'test/integrations/optional-peers.test.ts', 'node_modules/**'],
    testTimeout: 20_000,
    setupFiles: ['test/helpers/fuzz.ts'],
  },
});
