import { defineConfig } from 'vitest/config';

// Stryker's test run: the unit tests only (no real redis-server, no built package, no soak).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/lib/redis/**', 'test/package.test.ts', 'test/reliability/soak*.test.ts', 'test/reliability/redis*.test.ts', 'test/lib/leaks.test.ts', 'node_modules/**'],
    testTimeout: 20_000,
    setupFiles: ['test/helpers/fuzz.ts'],
  },
});
