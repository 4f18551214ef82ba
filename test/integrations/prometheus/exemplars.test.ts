import { Registry, type OpenMetricsContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { policy } from '../../../api/builder.js';
import { ConfigError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { registerMetrics } from '../../../integrations/prometheus/index.js';

function openMetricsRegistry(): Registry<OpenMetricsContentType> {
  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return registry;
}

describe('registerMetrics exemplars', () => {
  it('attaches the labels the exemplars function gives to the duration observation of each call', async () => {
    const clock = new TestClock();
    const registry = openMetricsRegistry();
    const p = policy({ clock }).retry({ name: 'payments', maxAttempts: 1 });
    let exemplar: Record<string, string> | undefined = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' };
    using _ = registerMetrics(p, { registry, exemplars: () => exemplar });
    await p.execute(async () => {
      await clock.advance(20);
      return 'ok';
    });
    const text = await registry.metrics();
    const bucket = text.split('\n').find((l) => l.startsWith('breakwater_call_duration_seconds_bucket{le="0.025",policy="payments"}'));
    expect(bucket).toBe('breakwater_call_duration_seconds_bucket{le="0.025",policy="payments"} 1 # {trace_id="4bf92f3577b34da6a3ce929d0e0e4736",span_id="00f067aa0ba902b7"} 0.02 ' + bucket!.split(' ').at(-1));
    expect(text).toContain('breakwater_call_duration_seconds_count{policy="payments"} 1');

    // no exemplar for a call made where the function gives none: the count still grows
    exemplar = undefined;
    await p.execute(async () => 'ok');
    const after = await registry.metrics();
    expect(after).toContain('breakwater_call_duration_seconds_count{policy="payments"} 2');
    expect(after.match(/# \{trace_id=/g)).toHaveLength(1);
  });

  it('refuses exemplars on a registry that cannot carry them, naming the option', () => {
    const p = policy().retry({ name: 'payments', maxAttempts: 1 });
    const registry = new Registry();
    expect(() => registerMetrics(p, { registry, exemplars: () => undefined })).toThrow(ConfigError);
    expect(() => registerMetrics(p, { registry, exemplars: () => undefined })).toThrow(/exemplars: expected a registry with the OpenMetrics content type/);
    expect(registry.getMetricsAsArray()).toHaveLength(0);
    expect(() => registerMetrics(p, { registry: openMetricsRegistry(), exemplars: 'trace' as never })).toThrow(/exemplars: expected a function/);
  });

  it('keeps one family per registry: a registration without exemplars cannot share one that has them', () => {
    const registry = openMetricsRegistry();
    using _ = registerMetrics(policy().retry({ name: 'a', maxAttempts: 1 }), { registry, exemplars: () => undefined });
    expect(() => registerMetrics(policy().retry({ name: 'b', maxAttempts: 1 }), { registry })).toThrow(/breakwater_call_duration_seconds is already registered/);
  });
});
