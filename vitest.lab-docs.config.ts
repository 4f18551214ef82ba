import { defineConfig } from 'vitest/config';

// `npm run test:lab-docs`: the published lab figures against the docs, the claims and a rerun of one seed, left out of `npm test` for its length.
export default defineConfig({
  test: {
    include: ['test/lab/published.test.ts'],
    testTimeout: 600_000,
  },
});
