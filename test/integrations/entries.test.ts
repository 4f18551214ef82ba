import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('the built integration entries', () => {
  it('import as ESM and require as CJS', async () => {
    const expected = {
      'breakwater/prometheus': ['registerMetrics', 'PrometheusOptionsSchema'],
      'breakwater/otel': ['registerOtelMetrics', 'OtelOptionsSchema', 'errorType', 'ATTR_POLICY'],
      'breakwater/http': ['protectHandler', 'protectExpress', 'protectFastify', 'shedAnswer', 'HttpGuardOptionsSchema'],
      'breakwater/grpc': ['clientInterceptor', 'serverInterceptor', 'isFailureCode', 'FAILURE_CODES', 'SHED_DETAILS'],
    } as const;
    for (const [entry, names] of Object.entries(expected)) {
      const esm = (await import(entry)) as Record<string, unknown>;
      const cjs = require(entry) as Record<string, unknown>;
      for (const name of names) {
        expect(esm[name], `${entry} ${name} (ESM)`).toBeDefined();
        expect(cjs[name], `${entry} ${name} (CJS)`).toBeDefined();
      }
    }
  });

  it('registers metrics from the CJS build for a policy of the ESM build', async () => {
    const { registerMetrics } = require('breakwater/prometheus') as typeof import('breakwater/prometheus');
    const { Registry } = await import('prom-client');
    const { retry } = await import('breakwater');
    const registry = new Registry();
    const r = retry({ name: 'r', maxAttempts: 2, backoff: () => 0 });
    const handle = registerMetrics(r, { registry });
    let n = 0;
    await r.execute(() => {
      if (n++ === 0) throw new Error('once');
      return 1;
    });
    expect(await registry.metrics()).toContain('breakwater_retries_total{policy="r"} 1');
    handle.dispose();
  });
});
