import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { EventSource } from '../../../lib/events.js';
import { ConfigError } from '../../../lib/errors.js';
import { registerOtelMetrics } from '../../../integrations/otel/index.js';
import { scriptedTraffic } from '../helpers/traffic.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { TestClock } from '../../../lib/testing.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';

const providers: MeterProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) await p.shutdown();
});

function setup() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  providers.push(provider);
  const meter = provider.getMeter('test');
  const collect = async (): Promise<Map<string, MetricData>> => {
    exporter.reset();
    await reader.forceFlush();
    const out = new Map<string, MetricData>();
    for (const rm of exporter.getMetrics()) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) out.set(m.descriptor.name, m);
    return out;
  };
  return { meter, collect };
}

function points(m: MetricData | undefined): Array<{ attributes: Record<string, unknown>; value: unknown }> {
  return (m?.dataPoints ?? []).map((d) => ({ attributes: { ...d.attributes }, value: d.value }));
}

/** The three points of one breaker's `breaker.state` gauge, in the order they are observed. */
function statePoints(attributes: Record<string, unknown>, current: string): Array<{ attributes: Record<string, unknown>; value: unknown }> {
  return ['closed', 'open', 'half_open'].map((state) => ({ attributes: { ...attributes, state }, value: state === current ? 1 : 0 }));
}

describe('registerOtelMetrics', () => {
  it("counts the caller's own cancellation as cancelled, and times it", async () => {
    const clock = new TestClock(1_700_000_000_000);
    const breaker = circuitBreaker({ name: 'payments', strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    const { meter, collect } = setup();
    registerOtelMetrics(breaker, { meter });
    const ac = new AbortController();
    const call = breaker.execute(() => new Promise(() => {}), { signal: ac.signal }).catch((e: unknown) => e);
    await clock.advance(30);
    ac.abort(new Error('client gone'));
    await call;
    const m = await collect();
    expect(points(m.get('breakwater.calls'))).toEqual([{ attributes: { policy: 'payments', result: 'cancelled' }, value: 1 }]);
    expect(m.get('breakwater.calls')!.descriptor.description).toBe(
      'Calls handled by a policy, by result: success, failure, timeout, rejected, cancelled, fallback.',
    );
    const duration = m.get('breakwater.call.duration')!.dataPoints[0]!.value as { count: number; sum: number };
    expect(duration.count).toBe(1);
    expect(duration.sum).toBeCloseTo(0.03, 10);
  });

  it('records the same figures as the Prometheus entry, checked with the SDK in-memory exporter', async () => {
    const { pipeline, run } = scriptedTraffic();
    const { meter, collect } = setup();
    registerOtelMetrics(pipeline, { meter });
    let openState: unknown;
    await run(async () => {
      openState = points((await collect()).get('breakwater.breaker.state'));
    });
    expect(openState).toEqual(statePoints({ policy: 'payments' }, 'open'));
    const m = await collect();

    expect(points(m.get('breakwater.breaker.state'))).toEqual(statePoints({ policy: 'payments' }, 'closed'));

    const calls = m.get('breakwater.calls')!;
    expect(calls.dataPointType).toBe(DataPointType.SUM);
    const byResult = (policy: string) =>
      Object.fromEntries(points(calls).filter((p) => p.attributes.policy === policy).map((p) => [p.attributes.result, p.value]));
    expect(byResult('payments')).toEqual({ success: 4, failure: 3, rejected: 1 });
    expect(byResult('payments-retry')).toEqual({ success: 4, failure: 1, rejected: 1 });

    expect(points(m.get('breakwater.retries'))).toEqual([{ attributes: { policy: 'payments-retry' }, value: 2 }]);

    const duration = m.get('breakwater.call.duration')!;
    expect(duration.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(duration.descriptor.unit).toBe('s');
    const hist = (policy: string) =>
      duration.dataPoints.find((d) => d.attributes.policy === policy)!.value as {
        count: number;
        sum: number;
        min: number;
        max: number;
        buckets: { boundaries: number[]; counts: number[] };
      };
    const b = hist('payments');
    expect(b.count).toBe(7);
    expect(b.sum).toBeCloseTo(0.21, 10);
    expect(b.min).toBeCloseTo(0.01, 10);
    expect(b.max).toBeCloseTo(0.05, 10);
    expect(b.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    // OTel buckets are (lower, upper]: 10,10 | 20 | 30,40,50,50
    expect(b.buckets.counts.slice(0, 5)).toEqual([0, 2, 1, 4, 0]);
    const r = hist('payments-retry');
    expect(r.count).toBe(5);
    expect(r.sum).toBeCloseTo(0.41, 10);
  });

  it('adds constant attributes, honours prefix and buckets, and stops on dispose', async () => {
    const { meter, collect } = setup();
    const breaker = new TestBreaker({ name: 'inventory', failures: 1 });
    const handle = registerOtelMetrics(breaker, { meter, prefix: 'shop.', attributes: { service: 'checkout' }, buckets: [0.1, 1] });
    await breaker.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    let m = await collect();
    expect(points(m.get('shop.breaker.state'))).toEqual(statePoints({ policy: 'inventory', service: 'checkout' }, 'open'));
    expect(points(m.get('shop.calls'))).toEqual([{ attributes: { policy: 'inventory', result: 'failure', service: 'checkout' }, value: 1 }]);
    expect((m.get('shop.call.duration')!.dataPoints[0]!.value as { buckets: { boundaries: number[] } }).buckets.boundaries).toEqual([0.1, 1]);
    handle.dispose();
    await breaker.execute(() => 1).catch(() => {});
    m = await collect();
    // the SDK keeps a cumulative gauge's last point; what matters is that nothing new is counted
    expect(points(m.get('shop.calls'))).toEqual([{ attributes: { policy: 'inventory', result: 'failure', service: 'checkout' }, value: 1 }]);
  });

  it('rejects bad options with a ConfigError', () => {
    const b = new TestBreaker();
    expect(() => registerOtelMetrics(b, { attributes: { result: 'x' } })).toThrow(ConfigError);
    expect(() => registerOtelMetrics(b, { meter: {} as never })).toThrow(/meter/);
    expect(() => registerOtelMetrics(b, { buckets: [] })).toThrow(/buckets/);
  });

  it("observes each adaptive limiter's current limit and calls in flight, until disposed", async () => {
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 4 });
    const { meter, collect } = setup();
    const handle = registerOtelMetrics(limiter, { meter, attributes: { service: 'api' } });
    const permit = limiter.allow();
    let m = await collect();
    expect(points(m.get('breakwater.concurrency.limit'))).toEqual([{ attributes: { policy: 'users', service: 'api' }, value: 4 }]);
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { policy: 'users', service: 'api' }, value: 1 }]);
    permit.success();
    m = await collect();
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { policy: 'users', service: 'api' }, value: 0 }]);
    handle.dispose();
    const after = limiter.allow();
    m = await collect();
    // the SDK keeps a cumulative gauge's last point; what matters is that it is no longer read
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { policy: 'users', service: 'api' }, value: 0 }]);
    after.release();
  });

  it('describes every instrument', async () => {
    const { meter, collect } = setup();
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 2 });
    registerOtelMetrics(limiter, { meter });
    await limiter.execute(() => 1);
    const descriptions = Object.fromEntries([...(await collect()).values()].map((m) => [m.descriptor.name, m.descriptor.description]));
    expect(descriptions).toEqual({
      'breakwater.calls': 'Calls handled by a policy, by result: success, failure, timeout, rejected, cancelled, fallback.',
      'breakwater.call.duration': 'Time from a call entering a policy to its settling (shed calls excluded).',
      'breakwater.concurrency.limit': 'Calls an adaptive concurrency limiter admits at once now.',
      'breakwater.concurrency.in_flight': 'Calls in flight under an adaptive concurrency limiter now.',
    });
  });

  it('reports limiter figures with the policy attribute alone when no attributes are given', async () => {
    const { meter, collect } = setup();
    registerOtelMetrics(adaptiveLimiter({ name: 'users', initialLimit: 3 }), { meter });
    const m = await collect();
    expect(points(m.get('breakwater.concurrency.limit'))).toEqual([{ attributes: { policy: 'users' }, value: 3 }]);
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { policy: 'users' }, value: 0 }]);
  });

  it("adds the key of a keyed breaker's breakers only with perKey, and never times a shed call", async () => {
    const source = new EventSource();
    const target = { name: 'p', events$: source.events$, policies: [{ name: 'tenants' }] };
    const plain = setup();
    const keyed = setup();
    registerOtelMetrics(target, { meter: plain.meter });
    registerOtelMetrics(target, { meter: keyed.meter, perKey: true, attributes: { service: 'api' } });
    const emit = (e: Record<string, unknown>) => source.emit(e as never);
    emit({ type: 'outcome', policy: 'tenants:t1', result: 'success', durationMs: 20 });
    emit({ type: 'outcome', policy: 'tenants:t1', result: 'rejected', durationMs: 0 });
    emit({ type: 'retry', policy: 'tenants:t2' });
    emit({ type: 'stateChange', policy: 'tenants:t1', from: 'closed', to: 'open', reason: 'x' });
    const a = await plain.collect();
    expect(points(a.get('breakwater.calls'))).toEqual([
      { attributes: { policy: 'tenants', result: 'success' }, value: 1 },
      { attributes: { policy: 'tenants', result: 'rejected' }, value: 1 },
    ]);
    expect(points(a.get('breakwater.retries'))).toEqual([{ attributes: { policy: 'tenants' }, value: 1 }]);
    expect(a.get('breakwater.breaker.state')?.dataPoints ?? []).toEqual([]);
    const duration = a.get('breakwater.call.duration')!.dataPoints;
    expect(duration.map((d) => [{ ...d.attributes }, (d.value as { count: number }).count])).toEqual([[{ policy: 'tenants' }, 1]]);
    const b = await keyed.collect();
    expect(points(b.get('breakwater.calls'))).toEqual([
      { attributes: { policy: 'tenants', result: 'success', key: 't1', service: 'api' }, value: 1 },
      { attributes: { policy: 'tenants', result: 'rejected', key: 't1', service: 'api' }, value: 1 },
    ]);
    expect(points(b.get('breakwater.retries'))).toEqual([{ attributes: { policy: 'tenants', key: 't2', service: 'api' }, value: 1 }]);
    expect(points(b.get('breakwater.breaker.state'))).toEqual(statePoints({ policy: 'tenants', key: 't1', service: 'api' }, 'open'));
  });

  it('gives a state without a key the empty key under perKey', async () => {
    const { meter, collect } = setup();
    registerOtelMetrics(new TestBreaker({ name: 'solo' }), { meter, perKey: true });
    expect(points((await collect()).get('breakwater.breaker.state'))).toEqual(statePoints({ policy: 'solo', key: '' }, 'closed'));
  });

  it("uses the global meter provider's meter 'breakwater' by default", async () => {
    const { collect } = setup();
    const provider = providers.at(-1)!;
    metrics.setGlobalMeterProvider(provider);
    try {
      const b = new TestBreaker({ name: 'global' });
      registerOtelMetrics(b);
      await b.execute(() => 1);
      const m = await collect();
      expect(points(m.get('breakwater.calls'))).toEqual([{ attributes: { policy: 'global', result: 'success' }, value: 1 }]);
    } finally {
      metrics.disable();
    }
  });

  it('refuses each taken attribute name and unknown options', () => {
    const b = new TestBreaker();
    for (const taken of ['policy', 'result', 'state', 'key']) expect(() => registerOtelMetrics(b, { attributes: { [taken]: 'x' } })).toThrow(`invalid otel options: attributes.${taken}: expected a free attribute name`);
    expect(() => registerOtelMetrics(b, { meter: {} as never })).toThrow('invalid otel options: meter: expected an OpenTelemetry Meter');
    expect(() => registerOtelMetrics(b, { bogus: 1 } as never)).toThrow('invalid otel options: bogus: unknown option');
  });
});
