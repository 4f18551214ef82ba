import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerLimiterGauges } from '../../../integrations/prometheus/limiters.js';
import type { LimiterFigures } from '../../../integrations/shared/limiters.js';

/** The values of gauge `name` in `registry` at a scrape, by their labels. */
async function scrape(registry: Registry, name: string): Promise<{ labels: Record<string, unknown>; value: number }[] | undefined> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  const { values } = await metric.get();
  return values.map((v) => ({ labels: { ...v.labels }, value: v.value }));
}

const limiter = (name: string, limit: number, inFlight: number): { name: string; limit: number; inFlight: number } & LimiterFigures => ({ name, limit, inFlight });

describe('registerLimiterGauges', () => {
  it('publishes each limiter’s limit and calls in flight, with its labels, under the prefix', async () => {
    const registry = new Registry();
    const a = limiter('db', 20, 3);
    const b = limiter('api', 5, 0);
    registerLimiterGauges(registry, 'app_', ['policy', 'service'], (policy) => ({ policy, service: 'checkout' }), [a, b]);
    expect(await scrape(registry, 'app_concurrency_limit')).toEqual([
      { labels: { policy: 'db', service: 'checkout' }, value: 20 },
      { labels: { policy: 'api', service: 'checkout' }, value: 5 },
    ]);
    expect(await scrape(registry, 'app_concurrency_in_flight')).toEqual([
      { labels: { policy: 'db', service: 'checkout' }, value: 3 },
      { labels: { policy: 'api', service: 'checkout' }, value: 0 },
    ]);
  });

  it('reads the figures live at each scrape', async () => {
    const registry = new Registry();
    const a = limiter('db', 20, 3);
    registerLimiterGauges(registry, 'x_', ['policy'], (policy) => ({ policy }), [a]);
    a.limit = 12;
    a.inFlight = 9;
    expect(await scrape(registry, 'x_concurrency_limit')).toEqual([{ labels: { policy: 'db' }, value: 12 }]);
    expect(await scrape(registry, 'x_concurrency_in_flight')).toEqual([{ labels: { policy: 'db' }, value: 9 }]);
  });

  it('registrations share the gauges; undoing one takes its series away, the last one the gauges', async () => {
    const registry = new Registry();
    const undoA = registerLimiterGauges(registry, 'y_', ['policy'], (policy) => ({ policy }), [limiter('a', 1, 0)]);
    const undoB = registerLimiterGauges(registry, 'y_', ['policy'], (policy) => ({ policy }), [limiter('b', 2, 1)]);
    expect((await scrape(registry, 'y_concurrency_limit'))?.map((v) => v.labels['policy'])).toEqual(['a', 'b']);
    undoA();
    expect(await scrape(registry, 'y_concurrency_limit')).toEqual([{ labels: { policy: 'b' }, value: 2 }]);
    expect(await scrape(registry, 'y_concurrency_in_flight')).toEqual([{ labels: { policy: 'b' }, value: 1 }]);
    undoB();
    expect(registry.getSingleMetric('y_concurrency_limit')).toBeUndefined();
    expect(registry.getSingleMetric('y_concurrency_in_flight')).toBeUndefined();
  });

  it('each gauge says what it measures', async () => {
    const registry = new Registry();
    registerLimiterGauges(registry, 'z_', ['policy'], (policy) => ({ policy }), [limiter('a', 1, 0)]);
    const text = await registry.metrics();
    expect(text).toContain('# HELP z_concurrency_limit Calls an adaptive concurrency limiter admits at once now.');
    expect(text).toContain('# HELP z_concurrency_in_flight Calls in flight under an adaptive concurrency limiter now.');
    expect(text).toContain('# TYPE z_concurrency_limit gauge');
  });
});
