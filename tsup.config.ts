import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'api/index.ts',
    testing: 'lib/testing.ts',
    sla: 'lib/sla.ts',
    redis: 'integrations/redis/index.ts',
    prometheus: 'integrations/prometheus/index.ts',
    otel: 'integrations/otel/index.ts',
    http: 'integrations/http/index.ts',
    grpc: 'integrations/grpc/index.ts',
  },
  // Optional peers: loaded only by the entry that needs them, never bundled.
  external: ['ioredis', 'prom-client', '@opentelemetry/api', '@grpc/grpc-js', 'express', 'fastify'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Built-in imports keep their `node:` prefix as written, so the output says which imports are Node's.
  removeNodeProtocol: false,
  treeshake: true,
  splitting: true,
});
