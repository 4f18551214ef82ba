import { defineConfig } from 'tsup';

const shared = {
  // Optional peers: loaded only by the entry that needs them, never bundled.
  external: ['ioredis', 'prom-client', '@opentelemetry/api', '@grpc/grpc-js', 'express', 'fastify'],
  target: 'node20',
  // Built-in imports keep their `node:` prefix as written, so the output says which imports are Node's.
  removeNodeProtocol: false,
  // `npm run build` empties dist/ once before both builds run (they run side by side)
  clean: false,
  sourcemap: false,
} as const;

export default defineConfig([
  {
    // What Node loads (`import` and `require`): one file per entry plus shared chunks, so importing is a few file reads.
    ...shared,
    entry: {
      index: 'api/index.ts',
      config: 'api/config.ts',
      testing: 'lib/testing.ts',
      sla: 'lib/sla.ts',
      redis: 'integrations/redis/index.ts',
      prometheus: 'integrations/prometheus/index.ts',
      otel: 'integrations/otel/index.ts',
      http: 'integrations/http/index.ts',
      grpc: 'integrations/grpc/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    treeshake: true,
    splitting: true,
  },
  {
    // What bundlers load (the `module` condition): one ES module per source file, so a bundle keeps only what it uses.
    ...shared,
    entry: ['lib/**/*.ts', 'policies/**/*.ts', 'config/**/*.ts', 'integrations/**/*.ts', 'api/**/*.ts'],
    outDir: 'dist/module',
    format: ['esm'],
    bundle: false,
    dts: false,
  },
]);
