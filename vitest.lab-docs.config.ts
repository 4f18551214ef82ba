import { defineConfig } from 'vitest/config';

// `npm run test:lab-docs`: the docs' lab table against a fresh full lab run, left out of `npm test` for its length.
export default defineConfig({
  test: {
    include: ['test/lab/docs-table.test.ts'],
    testTimeout: 600_000,
  },
});
