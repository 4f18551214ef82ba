import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'lib/index.ts', testing: 'lib/testing.ts', sla: 'lib/sla.ts', redis: 'lib/redis/index.ts' },
  external: ['ioredis'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  treeshake: true,
  splitting: true,
});
