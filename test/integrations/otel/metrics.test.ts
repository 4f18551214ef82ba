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
import { BrokenCircuitError, ConfigError, TimeoutError } from '../../../lib/errors.js';
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
  return ['closed', 'open', 'half_open'].map((state) => ({ attributes: { ...attributes, 'breakwater.breaker.state': state }, value: state === current ? 1 : 0 }));
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
    ac.abort(new DOMException('client gone', 'AbortError'));
    await call;
    const m = await collect();
    const cancelled = { 'breakwater.policy.name': 'payments', 'breakwater.call.outcome': 'cancelled', 'error.type': 'AbortError' };
    expect(points(m.get('breakwater.calls'))).toEqual([{ attributes: cancelled, value: 1 }]);
    expect(m.get('breakwater.calls')!.descriptor.description).toBe(
      'Calls handled by a policy, by outcome: success, failure, timeout, rejected, cancelled, fallback.',
    );
    expect({ ...m.get('breakwater.call.duration')!.dataPoints[0]!.attributes }).toEqual(cancelled);
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
    expect(openState).toEqual(statePoints({ 'breakwater.policy.name': 'payments' }, 'open'));
    const m = await collect();

    expect(points(m.get('breakwater.breaker.state'))).toEqual(statePoints({ 'breakwater.policy.name': 'payments' }, 'closed'));

    const calls = m.get('breakwater.calls')!;
    expect(calls.dataPointType).toBe(DataPointType.SUM);
    expect(calls.descriptor.unit).toBe('{call}');
    // every failure threw the script's plain Error; every shed call breakwater's BrokenCircuitError
    const byOutcome = (policy: string) =>
      points(calls)
        .filter((p) => p.attributes['breakwater.policy.name'] === policy)
        .map((p) => [p.attributes['breakwater.call.outcome'], p.attributes['error.type'], p.value]);
    expect(byOutcome('payments')).toEqual([
      ['success', undefined, 4],
      ['failure', 'Error', 3],
      ['rejected', 'BrokenCircuitError', 1],
    ]);
    expect(byOutcome('payments-retry')).toEqual([
      ['success', undefined, 4],
      ['failure', 'Error', 1],
      ['rejected', 'BrokenCircuitError', 1],
    ]);

    expect(points(m.get('breakwater.retries'))).toEqual([{ attributes: { 'breakwater.policy.name': 'payments-retry' }, value: 2 }]);

    const duration = m.get('breakwater.call.duration')!;
    expect(duration.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(duration.descriptor.unit).toBe('s');
    // shed calls are not timed, so no point has the outcome rejected
    expect(duration.dataPoints.map((d) => [d.attributes['breakwater.policy.name'], d.attributes['breakwater.call.outcome'], d.attributes['error.type']])).toEqual([
      ['payments', 'success', undefined],
      ['payments-retry', 'success', undefined],
      ['payments', 'failure', 'Error'],
      ['payments-retry', 'failure', 'Error'],
    ]);
    const hist = (policy: string, outcome: string) =>
      duration.dataPoints.find((d) => d.attributes['breakwater.policy.name'] === policy && d.attributes['breakwater.call.outcome'] === outcome)!.value as {
        count: number;
        sum: number;
        min: number;
        max: number;
        buckets: { boundaries: number[]; counts: number[] };
      };
    // the breaker's successes took 50, 50, 30 and 40 ms, its failures 20, 10 and 10 ms
    const ok = hist('payments', 'success');
    expect(ok.count).toBe(4);
    expect(ok.sum).toBeCloseTo(0.17, 10);
    expect(ok.min).toBeCloseTo(0.03, 10);
    expect(ok.max).toBeCloseTo(0.05, 10);
    expect(ok.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    // OTel buckets are (lower, upper]: 30,40,50,50 in (0.025, 0.05]
    expect(ok.buckets.counts.slice(0, 5)).toEqual([0, 0, 0, 4, 0]);
    const failed = hist('payments', 'failure');
    expect(failed.count).toBe(3);
    expect(failed.sum).toBeCloseTo(0.04, 10);
    // 10,10 in (0.005, 0.01] | 20 in (0.01, 0.025]
    expect(failed.buckets.counts.slice(0, 5)).toEqual([0, 2, 1, 0, 0]);
    // the retry's calls: 50, 50, 150 and 40 ms answered, 120 ms given up
    expect(hist('payments-retry', 'success').count).toBe(4);
    expect(hist('payments-retry', 'success').sum).toBeCloseTo(0.29, 10);
    expect(hist('payments-retry', 'failure').count).toBe(1);
    expect(hist('payments-retry', 'failure').sum).toBeCloseTo(0.12, 10);
  });

  it('adds constant attributes, honours prefix and buckets, and stops on dispose', async () => {
    const { meter, collect } = setup();
    const breaker = new TestBreaker({ name: 'inventory', failures: 1 });
    const handle = registerOtelMetrics(breaker, { meter, prefix: 'shop.', attributes: { service: 'checkout' }, buckets: [0.1, 1] });
    await breaker.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    let m = await collect();
    expect(points(m.get('shop.breaker.state'))).toEqual(statePoints({ 'breakwater.policy.name': 'inventory', service: 'checkout' }, 'open'));
    expect(points(m.get('shop.calls'))).toEqual([{ attributes: { 'breakwater.policy.name': 'inventory', 'breakwater.call.outcome': 'failure', 'error.type': 'Error', service: 'checkout' }, value: 1 }]);
    expect((m.get('shop.call.duration')!.dataPoints[0]!.value as { buckets: { boundaries: number[] } }).buckets.boundaries).toEqual([0.1, 1]);
    handle.dispose();
    await breaker.execute(() => 1).catch(() => {});
    m = await collect();
    // the SDK keeps a cumulative gauge's last point; what matters is that nothing new is counted
    expect(points(m.get('shop.calls'))).toEqual([{ attributes: { 'breakwater.policy.name': 'inventory', 'breakwater.call.outcome': 'failure', 'error.type': 'Error', service: 'checkout' }, value: 1 }]);
  });

  it('rejects bad options with a ConfigError', () => {
    const b = new TestBreaker();
    expect(() => registerOtelMetrics(b, { attributes: { 'breakwater.call.outcome': 'x' } })).toThrow(ConfigError);
    expect(() => registerOtelMetrics(b, { meter: {} as never })).toThrow(/meter/);
    expect(() => registerOtelMetrics(b, { buckets: [] })).toThrow(/buckets/);
  });

  it("observes each adaptive limiter's current limit and calls in flight, until disposed", async () => {
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 4 });
    const { meter, collect } = setup();
    const handle = registerOtelMetrics(limiter, { meter, attributes: { service: 'api' } });
    const permit = limiter.allow();
    let m = await collect();
    expect(points(m.get('breakwater.concurrency.limit'))).toEqual([{ attributes: { 'breakwater.policy.name': 'users', service: 'api' }, value: 4 }]);
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { 'breakwater.policy.name': 'users', service: 'api' }, value: 1 }]);
    permit.success();
    m = await collect();
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { 'breakwater.policy.name': 'users', service: 'api' }, value: 0 }]);
    handle.dispose();
    const after = limiter.allow();
    m = await collect();
    // the SDK keeps a cumulative gauge's last point; what matters is that it is no longer read
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { 'breakwater.policy.name': 'users', service: 'api' }, value: 0 }]);
    after.release();
  });

  it('describes every instrument and gives it its UCUM unit', async () => {
    const { meter, collect } = setup();
    const { pipeline, run } = scriptedTraffic();
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 2 });
    registerOtelMetrics(pipeline, { meter });
    registerOtelMetrics(limiter, { meter });
    await run();
    await limiter.execute(() => 1);
    const described = Object.fromEntries([...(await collect()).values()].map((m) => [m.descriptor.name, [m.descriptor.unit, m.descriptor.description]]));
    expect(described).toEqual({
      'breakwater.breaker.state': ['{breaker}', 'Breaker state, one point per state: 1 for the current one, 0 for the others.'],
      'breakwater.calls': ['{call}', 'Calls handled by a policy, by outcome: success, failure, timeout, rejected, cancelled, fallback.'],
      'breakwater.call.duration': ['s', 'Time from a call entering a policy to its settling (shed calls excluded).'],
      'breakwater.retries': ['{retry}', 'Retries started by a retry policy.'],
      'breakwater.concurrency.limit': ['{call}', 'Calls an adaptive concurrency limiter admits at once now.'],
      'breakwater.concurrency.in_flight': ['{call}', 'Calls in flight under an adaptive concurrency limiter now.'],
    });
  });

  it("names each failed call's error class in error.type, and sets none on calls that did not fail", async () => {
    const source = new EventSource();
    const { meter, collect } = setup();
    registerOtelMetrics({ name: 'api', events$: source.events$ }, { meter });
    const outcome = (result: string, error?: unknown) => source.emit({ type: 'outcome', policy: 'api', result, durationMs: 10, error } as never);
    outcome('success');
    outcome('fallback', new Error('answered by the fallback'));
    outcome('timeout', new TimeoutError('api'));
    outcome('failure', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    outcome('failure', Object.assign(new Error('unavailable'), { code: 14 }));
    outcome('failure', new TypeError('x is not a function'));
    outcome('failure'); // a result handleResult judged a failure: nothing was thrown
    outcome('failure', 'a thrown string');
    outcome('rejected', new BrokenCircuitError('api'));
    outcome('cancelled', new DOMException('client gone', 'AbortError'));
    const m = await collect();
    const byPoint = (name: string) => points(m.get(name)).map((p) => [p.attributes['breakwater.call.outcome'], p.attributes['error.type'] ?? null]);
    const expected = [
      ['success', null],
      ['fallback', null],
      ['timeout', 'TimeoutError'],
      ['failure', 'ECONNRESET'],
      ['failure', '14'],
      ['failure', 'TypeError'],
      ['failure', '_OTHER'],
      ['rejected', 'BrokenCircuitError'],
      ['cancelled', 'AbortError'],
    ];
    expect(byPoint('breakwater.calls')).toEqual(expected);
    expect(points(m.get('breakwater.calls')).find((p) => p.attributes['error.type'] === '_OTHER')!.value).toBe(2);
    // the histogram carries the same attributes; the shed call is not timed
    expect(byPoint('breakwater.call.duration').map(([o, t]) => [o, t])).toEqual(expected.filter(([o]) => o !== 'rejected'));
  });

  it('reports limiter figures with the policy attribute alone when no attributes are given', async () => {
    const { meter, collect } = setup();
    registerOtelMetrics(adaptiveLimiter({ name: 'users', initialLimit: 3 }), { meter });
    const m = await collect();
    expect(points(m.get('breakwater.concurrency.limit'))).toEqual([{ attributes: { 'breakwater.policy.name': 'users' }, value: 3 }]);
    expect(points(m.get('breakwater.concurrency.in_flight'))).toEqual([{ attributes: { 'breakwater.policy.name': 'users' }, value: 0 }]);
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
      { attributes: { 'breakwater.policy.name': 'tenants', 'breakwater.call.outcome': 'success' }, value: 1 },
      { attributes: { 'breakwater.policy.name': 'tenants', 'breakwater.call.outcome': 'rejected', 'error.type': '_OTHER' }, value: 1 },
    ]);
    expect(points(a.get('breakwater.retries'))).toEqual([{ attributes: { 'breakwater.policy.name': 'tenants' }, value: 1 }]);
    expect(a.get('breakwater.breaker.state')?.dataPoints ?? []).toEqual([]);
    const duration = a.get('breakwater.call.duration')!.dataPoints;
    expect(duration.map((d) => [{ ...d.attributes }, (d.value as { count: number }).count])).toEqual([[{ 'breakwater.policy.name': 'tenants', 'breakwater.call.outcome': 'success' }, 1]]);
    const b = await keyed.collect();
    expect(points(b.get('breakwater.calls'))).toEqual([
      { attributes: { 'breakwater.policy.name': 'tenants', 'breakwater.call.outcome': 'success', 'breakwater.policy.key': 't1', service: 'api' }, value: 1 },
      { attributes: { 'breakwater.policy.name': 'tenants', 'breakwater.call.outcome': 'rejected', 'error.type': '_OTHER', 'breakwater.policy.key': 't1', service: 'api' }, value: 1 },
    ]);
    expect(points(b.get('breakwater.retries'))).toEqual([{ attributes: { 'breakwater.policy.name': 'tenants', 'breakwater.policy.key': 't2', service: 'api' }, value: 1 }]);
    expect(points(b.get('breakwater.breaker.state'))).toEqual(statePoints({ 'breakwater.policy.name': 'tenants', 'breakwater.policy.key': 't1', service: 'api' }, 'open'));
  });

  it('gives a state without a key the empty key under perKey', async () => {
    const { meter, collect } = setup();
    registerOtelMetrics(new TestBreaker({ name: 'solo' }), { meter, perKey: true });
    expect(points((await collect()).get('breakwater.breaker.state'))).toEqual(statePoints({ 'breakwater.policy.name': 'solo', 'breakwater.policy.key': '' }, 'closed'));
  });

  it('lets constant attributes use the bare names breakwater no longer sets', async () => {
    const { meter, collect } = setup();
    const b = new TestBreaker({ name: 'bare' });
    registerOtelMetrics(b, { meter, attributes: { policy: 'p', result: 'r', state: 's', key: 'k', error: 'e' } });
    await b.execute(() => 1);
    expect(points((await collect()).get('breakwater.calls'))).toEqual([
      { attributes: { 'breakwater.policy.name': 'bare', 'breakwater.call.outcome': 'success', policy: 'p', result: 'r', state: 's', key: 'k', error: 'e' }, value: 1 },
    ]);
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
      expect(points(m.get('breakwater.calls'))).toEqual([{ attributes: { 'breakwater.policy.name': 'global', 'breakwater.call.outcome': 'success' }, value: 1 }]);
    } finally {
      metrics.disable();
    }
  });

  it('refuses each taken attribute name and unknown options', () => {
    const b = new TestBreaker();
    for (const taken of ['breakwater.policy.name', 'breakwater.call.outcome', 'breakwater.breaker.state', 'breakwater.policy.key', 'breakwater.other', 'error.type']) {
      expect(() => registerOtelMetrics(b, { attributes: { [taken]: 'x' } })).toThrow(
        `invalid otel options: attributes.${taken}: expected a free attribute name (breakwater.* and error.type are taken)`,
      );
    }
    expect(() => registerOtelMetrics(b, { meter: {} as never })).toThrow('invalid otel options: meter: expected an OpenTelemetry Meter');
    expect(() => registerOtelMetrics(b, { bogus: 1 } as never)).toThrow('invalid otel options: bogus: unknown option');
  });
});
