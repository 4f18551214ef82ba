import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // one seed's full lab run on every core (45-130 s): its own step, `npm run test:lab-docs` (vitest.lab-docs.config.ts)
    exclude: ['test/lab/published.test.ts', 'node_modules/**'],
    testTimeout: 20_000,
    setupFiles: ['test/helpers/fuzz.ts'],
  },
});
