import { Counter, register as globalRegistry, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import { EventSource } from '../../../lib/events.js';
import { registerMetrics } from '../../../integrations/prometheus/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';
import { policy } from '../../../api/builder.js';
import { scriptedTraffic } from '../helpers/traffic.js';
import { TestClock } from '../../../lib/testing.js';

type Json = MetricObjectWithValues<MetricValue<string>>;

async function metric(registry: Registry, name: string): Promise<Json | undefined> {
  return (await registry.getMetricsAsJSON()).find((m) => m.name === name);
}

function value(m: Json | undefined, labels: Record<string, string | number>): number | undefined {
  const found = m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x) && Object.keys(v.labels).length === Object.keys(labels).length);
  return found?.value;
}

/**
 * The breaker state read from `breakwater_breaker_state`'s one-series-per-state form: the state whose series is 1,
 * when the three series of `labels` are there and exactly one is 1; otherwise undefined.
 */
function stateOf(m: Json | undefined, labels: Record<string, string>): string | undefined {
  const mine = (m?.values ?? []).filter((v) => {
    const { state: _state, ...rest } = v.labels;
    return Object.keys(rest).length === Object.keys(labels).length && Object.entries(labels).every(([k, x]) => rest[k] === x);
  });
  const states = mine.map((v) => v.labels.state).sort();
  if (states.join() !== 'closed,half_open,open') return undefined;
  const on = mine.filter((v) => v.value === 1);
  return on.length === 1 && mine.every((v) => v.value === 0 || v.value === 1) ? String(on[0]!.labels.state) : undefined;
}

/** The three series of one breaker in `breakwater_breaker_state`, as prom-client lists them. */
function stateSeries(labels: Record<string, string>, current: string): { labels: Record<string, string>; value: number }[] {
  return ['closed', 'open', 'half_open'].map((state) => ({ labels: { ...labels, state }, value: state === current ? 1 : 0 }));
}

describe('registerMetrics (prometheus)', () => {
  it('publishes state, calls by result, durations and retries after scripted traffic', async () => {
    const { breaker, pipeline, run } = scriptedTraffic();
    const registry = new Registry();
    registerMetrics(pipeline, { registry });
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' })).toBe('closed');
    let stateWhileOpen: string | undefined;
    await run(async () => {
      stateWhileOpen = stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' });
    });
    expect(stateWhileOpen).toBe('open');
    expect(breaker.state).toBe('closed');

    const state = await metric(registry, 'breakwater_breaker_state');
    expect(state?.type).toBe('gauge');
    expect(state?.values).toEqual(stateSeries({ policy: 'payments' }, 'closed'));

    const calls = await metric(registry, 'breakwater_calls_total');
    expect(calls?.type).toBe('counter');
    const byResult = (policy: string) =>
      Object.fromEntries(calls!.values.filter((v) => v.labels.policy === policy).map((v) => [v.labels.result, v.value]));
    expect(byResult('payments')).toEqual({ success: 4, failure: 3, rejected: 1 });
    expect(byResult('payments-retry')).toEqual({ success: 4, failure: 1, rejected: 1 });

    const retries = await metric(registry, 'breakwater_retries_total');
    expect(retries?.values).toEqual([{ labels: { policy: 'payments-retry' }, value: 2 }]);

    const duration = await metric(registry, 'breakwater_call_duration_seconds');
    expect(duration?.type).toBe('histogram');
    const h = (policy: string, metricName: string, le?: number) =>
      duration!.values.find((v) => v.labels.policy === policy && (v as { metricName?: string }).metricName === metricName && (le === undefined || v.labels.le === le))?.value;
    expect(h('payments', 'breakwater_call_duration_seconds_count')).toBe(7);
    expect(h('payments', 'breakwater_call_duration_seconds_sum')).toBeCloseTo(0.21, 10);
    expect(h('payments', 'breakwater_call_duration_seconds_bucket', 0.01)).toBe(2);
    expect(h('payments', 'breakwater_call_duration_seconds_bucket', 0.025)).toBe(3);
    expect(h('payments', 'breakwater_call_duration_seconds_bucket', 0.05)).toBe(7);
    expect(h('payments-retry', 'breakwater_call_duration_seconds_count')).toBe(5);
    expect(h('payments-retry', 'breakwater_call_duration_seconds_sum')).toBeCloseTo(0.41, 10);
    expect(h('payments-retry', 'breakwater_call_duration_seconds_bucket', 0.1)).toBe(3);
    expect(h('payments-retry', 'breakwater_call_duration_seconds_bucket', 0.25)).toBe(5);

    const text = await registry.metrics();
    expect(text).toContain('breakwater_calls_total{policy="payments",result="failure"} 3');
    expect(text).toContain('breakwater_retries_total{policy="payments-retry"} 2');
    expect(text).toContain('# TYPE breakwater_call_duration_seconds histogram');
  });

  it('publishes the same figures for the real circuitBreaker', async () => {
    const { breaker, pipeline, run } = scriptedTraffic((clock) =>
      circuitBreaker({ name: 'payments', strategy: 'consecutiveFailures', threshold: 2, openMs: 1_000, clock }),
    );
    const registry = new Registry();
    registerMetrics(pipeline, { registry, gobreakerAliases: true });
    let stateWhileOpen: string | undefined;
    await run(async () => {
      stateWhileOpen = stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' });
    });
    expect(stateWhileOpen).toBe('open');
    expect(breaker.state).toBe('closed');
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' })).toBe('closed');
    const calls = await metric(registry, 'breakwater_calls_total');
    const byResult = (policy: string) =>
      Object.fromEntries(calls!.values.filter((v) => v.labels.policy === policy).map((v) => [v.labels.result, v.value]));
    expect(byResult('payments')).toEqual({ success: 4, failure: 3, rejected: 1 });
    expect(byResult('payments-retry')).toEqual({ success: 4, failure: 1, rejected: 1 });
    expect(value(await metric(registry, 'breakwater_retries_total'), { policy: 'payments-retry' })).toBe(2);
    const duration = await metric(registry, 'breakwater_call_duration_seconds');
    const sum = duration!.values.find((v) => v.labels.policy === 'payments' && (v as { metricName?: string }).metricName === 'breakwater_call_duration_seconds_sum');
    expect(sum?.value).toBeCloseTo(0.21, 10);
    expect(value(await metric(registry, 'gobreaker_state'), { name: 'payments' })).toBe(0);
  });

  it('shows half-open while the probe runs', async () => {
    const { clock, breaker, pipeline } = scriptedTraffic();
    const registry = new Registry();
    registerMetrics(breaker, { registry });
    const fail = () => Promise.reject(new Error('x'));
    const failed = pipeline.execute(fail).catch(() => 'failed');
    await clock.runAll();
    expect(await failed).toBe('failed');
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' })).toBe('open');
    await clock.advance(1_000);
    let release!: () => void;
    const probe = breaker.execute(() => new Promise<void>((r) => (release = r)));
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' })).toBe('half_open');
    release();
    await probe;
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'payments' })).toBe('closed');
  });

  it('keeps the gobreaker names of seed 002 as aliases, with constant labels and a prefix', async () => {
    const { pipeline, run } = scriptedTraffic();
    const registry = new Registry();
    registerMetrics(pipeline, { registry, prefix: 'shop_', labels: { service: 'checkout' }, gobreakerAliases: true });
    await run();
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual([
      'gobreaker_calls_total',
      'gobreaker_state',
      'shop_breaker_state',
      'shop_call_duration_seconds',
      'shop_calls_total',
      'shop_retries_total',
    ]);
    expect(value(await metric(registry, 'gobreaker_state'), { name: 'payments', service: 'checkout' })).toBe(0);
    const go = await metric(registry, 'gobreaker_calls_total');
    // only the breaker is counted under gobreaker's names
    expect(go?.values.map((v) => [v.labels.name, v.labels.result, v.value]).sort()).toEqual([
      ['payments', 'failure', 3],
      ['payments', 'rejected', 1],
      ['payments', 'success', 4],
    ]);
    expect(value(await metric(registry, 'shop_calls_total'), { policy: 'payments', result: 'success', service: 'checkout' })).toBe(4);
  });

  it("counts the caller's own cancellation as cancelled: timed, listed in the help, not one of gobreaker's results", async () => {
    const clock = new TestClock(1_700_000_000_000);
    const breaker = circuitBreaker({ name: 'payments', strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    const registry = new Registry();
    registerMetrics(breaker, { registry, gobreakerAliases: true });
    const ac = new AbortController();
    const call = breaker.execute(() => new Promise(() => {}), { signal: ac.signal }).catch((e: unknown) => e);
    await clock.advance(30);
    const gone = new Error('client gone');
    ac.abort(gone);
    expect(await call).toBe(gone);
    expect(breaker.state).toBe('closed'); // a counted failure would have opened it (threshold 1)
    const calls = await metric(registry, 'breakwater_calls_total');
    expect(calls?.values.map((v) => [v.labels.result, v.value])).toEqual([['cancelled', 1]]);
    expect(calls?.help).toBe('Calls handled by a policy, by result: success, failure, timeout, rejected, cancelled, fallback.');
    const duration = await metric(registry, 'breakwater_call_duration_seconds');
    const sum = duration!.values.find((v) => (v as { metricName?: string }).metricName === 'breakwater_call_duration_seconds_sum');
    expect(sum?.value).toBeCloseTo(0.03, 10);
    expect((await metric(registry, 'gobreaker_calls_total'))?.values).toEqual([]);
  });

  it('adds no per-key series unless perKey is set', async () => {
    const breaker = new TestBreaker({ name: 'keyed' });
    const registry = new Registry();
    const emit = (key: string) =>
      (breaker as unknown as { events: { emit(e: unknown): void } }).events.emit({ type: 'outcome', policy: 'keyed', result: 'success', durationMs: 1, key });
    registerMetrics(breaker, { registry });
    for (let i = 0; i < 50; i++) emit(`tenant-${i}`);
    expect((await metric(registry, 'breakwater_calls_total'))?.values).toEqual([{ labels: { policy: 'keyed', result: 'success' }, value: 50 }]);

    const perKey = new Registry();
    registerMetrics(breaker, { registry: perKey, perKey: true });
    emit('a');
    emit('a');
    emit('b');
    expect(value(await metric(perKey, 'breakwater_calls_total'), { policy: 'keyed', result: 'success', key: 'a' })).toBe(2);
    expect(value(await metric(perKey, 'breakwater_calls_total'), { policy: 'keyed', result: 'success', key: 'b' })).toBe(1);
  });

  it("counts a keyed breaker's breakers (named name:key) under its own name, per key only when asked", async () => {
    // a stand-in for a keyed breaker: its breakers emit as `tenants:<key>`
    const source = new EventSource();
    const keyed = { name: 'tenants', events$: source.events$ };
    const pipeline = { name: 'pipeline', events$: source.events$, policies: [keyed, new TestBreaker({ name: 'solo' })] };
    const emit = (e: Record<string, unknown>) => source.emit(e as never);
    const registry = new Registry();
    const perKey = new Registry();
    registerMetrics(pipeline, { registry });
    registerMetrics(pipeline, { registry: perKey, perKey: true });
    for (let i = 0; i < 20; i++) emit({ type: 'outcome', policy: `tenants:t${i % 4}`, result: 'success', durationMs: 10 });
    emit({ type: 'stateChange', policy: 'tenants:t1', from: 'closed', to: 'open', reason: 'x' });
    emit({ type: 'outcome', policy: 'tenants:t1', result: 'rejected', durationMs: 0 });

    expect((await metric(registry, 'breakwater_calls_total'))?.values.map((v) => [v.labels, v.value])).toEqual([
      [{ policy: 'tenants', result: 'success' }, 20],
      [{ policy: 'tenants', result: 'rejected' }, 1],
    ]);
    // no per-key state series; the solo breaker's state$ is there
    expect((await metric(registry, 'breakwater_breaker_state'))?.values).toEqual(stateSeries({ policy: 'solo' }, 'closed'));

    expect(value(await metric(perKey, 'breakwater_calls_total'), { policy: 'tenants', result: 'success', key: 't3' })).toBe(5);
    expect(stateOf(await metric(perKey, 'breakwater_breaker_state'), { policy: 'tenants', key: 't1' })).toBe('open');
    expect(stateOf(await metric(perKey, 'breakwater_breaker_state'), { policy: 'solo', key: '' })).toBe('closed');
  });

  it('shares metrics between registrations and removes them when the last is disposed', async () => {
    const registry = new Registry();
    const a = new TestBreaker({ name: 'a', failures: 1 });
    const b = new TestBreaker({ name: 'b' });
    const ha = registerMetrics(a, { registry });
    const hb = registerMetrics(b, { registry });
    await a.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    await b.execute(() => 1);
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'a' })).toBe('open');
    expect(value(await metric(registry, 'breakwater_calls_total'), { policy: 'b', result: 'success' })).toBe(1);
    ha.dispose();
    ha.dispose();
    // a's state series is gone, b's stays; a's events no longer count
    expect((await metric(registry, 'breakwater_breaker_state'))?.values).toEqual(stateSeries({ policy: 'b' }, 'closed'));
    await a.execute(() => 1).catch(() => {});
    expect(value(await metric(registry, 'breakwater_calls_total'), { policy: 'a', result: 'rejected' })).toBeUndefined();
    hb[Symbol.dispose]();
    expect(await registry.getMetricsAsJSON()).toEqual([]);
    // and the names are free again
    registerMetrics(a, { registry }).dispose();
  });

  it('rejects bad options and name clashes with a ConfigError', () => {
    const registry = new Registry();
    const b = new TestBreaker();
    expect(() => registerMetrics(b, { registry, prefix: '9bad' })).toThrow(ConfigError);
    expect(() => registerMetrics(b, { registry, labels: { policy: 'x' } })).toThrow(/labels.policy/);
    expect(() => registerMetrics(b, { registry, buckets: [1, 0.5] })).toThrow(/buckets/);
    expect(() => registerMetrics(b, { registry, bogus: 1 } as never)).toThrow(/bogus: unknown option/);
    registerMetrics(b, { registry, labels: { service: 's' } });
    expect(() => registerMetrics(b, { registry })).toThrow(/already registered with labels/);
  });

  it("publishes each adaptive limiter's current limit and calls in flight, read at each scrape", async () => {
    const registry = new Registry();
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 3 });
    const pipeline = policy().timeout(1_000).use(limiter);
    const other = adaptiveLimiter({ name: 'orders', initialLimit: 5 });
    const a = registerMetrics(pipeline, { registry, labels: { service: 'api' } });
    const b = registerMetrics(other, { registry, labels: { service: 'api' } });
    const permits = [limiter.allow(), limiter.allow()];
    const limit = await metric(registry, 'breakwater_concurrency_limit');
    expect(limit?.type).toBe('gauge');
    expect(limit?.values).toEqual([
      { labels: { policy: 'users', service: 'api' }, value: 3 },
      { labels: { policy: 'orders', service: 'api' }, value: 5 },
    ]);
    expect(value(await metric(registry, 'breakwater_concurrency_in_flight'), { policy: 'users', service: 'api' })).toBe(2);
    for (const p of permits) p.success();
    expect(value(await metric(registry, 'breakwater_concurrency_in_flight'), { policy: 'users', service: 'api' })).toBe(0);
    a.dispose();
    expect((await metric(registry, 'breakwater_concurrency_limit'))?.values).toEqual([{ labels: { policy: 'orders', service: 'api' }, value: 5 }]);
    b.dispose();
    expect(await metric(registry, 'breakwater_concurrency_limit')).toBeUndefined();
    // No limiter, no limiter metrics.
    registerMetrics(policy().timeout(10), { registry });
    expect(await metric(registry, 'breakwater_concurrency_limit')).toBeUndefined();
  });

  it('describes every metric in its help text', async () => {
    const registry = new Registry();
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 2 });
    const handle = registerMetrics(policy().use(limiter).use(new TestBreaker({ name: 'b' })), { registry, gobreakerAliases: true });
    const help = Object.fromEntries((await registry.getMetricsAsJSON()).map((m) => [m.name, m.help]));
    expect(help).toEqual({
      breakwater_breaker_state: 'Breaker state, one series per state: 1 for the current one, 0 for the others.',
      breakwater_calls_total: 'Calls handled by a policy, by result: success, failure, timeout, rejected, cancelled, fallback.',
      breakwater_call_duration_seconds: 'Time from a call entering a policy to its settling, in seconds (shed calls excluded).',
      breakwater_retries_total: 'Retries started by a retry policy.',
      gobreaker_state: 'Current state of circuit breaker (0=Closed, 1=Open, 2=HalfOpen)',
      gobreaker_calls_total: 'Circuit breaker calls by result: success, failure, rejected.',
      breakwater_concurrency_limit: 'Calls an adaptive concurrency limiter admits at once now.',
      breakwater_concurrency_in_flight: 'Calls in flight under an adaptive concurrency limiter now.',
    });
    handle.dispose();
    expect(await registry.getMetricsAsJSON()).toEqual([]);
  });

  it("registers on prom-client's global registry by default, and takes histogram buckets", async () => {
    const b = new TestBreaker({ name: 'global-b' });
    const handle = registerMetrics(b, { buckets: [0.1, 1] });
    try {
      await b.execute(() => 1);
      const duration = (await globalRegistry.getMetricsAsJSON()).find((m) => m.name === 'breakwater_call_duration_seconds');
      const les = duration!.values.filter((v) => (v as { metricName?: string }).metricName === 'breakwater_call_duration_seconds_bucket').map((v) => v.labels.le);
      expect(les).toEqual([0.1, 1, '+Inf']);
    } finally {
      handle.dispose();
    }
    expect((await globalRegistry.getMetricsAsJSON()).find((m) => m.name.startsWith('breakwater_'))).toBeUndefined();
  });

  it("counts under gobreaker's names a timeout as a failure, not a fallback, and a breaker known only by its transitions", async () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics({ name: 'svc', events$: source.events$ }, { registry, gobreakerAliases: true });
    const emit = (e: Record<string, unknown>) => source.emit(e as never);
    emit({ type: 'outcome', policy: 'svc', result: 'success', durationMs: 1 }); // not known as a breaker yet
    emit({ type: 'stateChange', policy: 'svc', from: 'closed', to: 'open', reason: 'x' });
    emit({ type: 'outcome', policy: 'svc', result: 'timeout', durationMs: 5 });
    emit({ type: 'outcome', policy: 'svc', result: 'fallback', durationMs: 5 });
    emit({ type: 'outcome', policy: 'svc', result: 'rejected', durationMs: 0 });
    expect((await metric(registry, 'gobreaker_calls_total'))?.values.map((v) => [v.labels, v.value])).toEqual([
      [{ name: 'svc', result: 'failure' }, 1],
      [{ name: 'svc', result: 'rejected' }, 1],
    ]);
    expect(value(await metric(registry, 'gobreaker_state'), { name: 'svc' })).toBe(1);
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'svc' })).toBe('open');
    // a shed call did no work: counted, not timed
    const count = (await metric(registry, 'breakwater_call_duration_seconds'))!.values.find(
      (v) => (v as { metricName?: string }).metricName === 'breakwater_call_duration_seconds_count',
    );
    expect(count?.value).toBe(3);
  });

  it('puts no key on the gobreaker state of a per-key breaker', async () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics({ name: 'p', events$: source.events$, policies: [{ name: 'tenants' }] }, { registry, gobreakerAliases: true, perKey: true });
    source.emit({ type: 'stateChange', policy: 'tenants:t1', from: 'closed', to: 'open', reason: 'x' } as never);
    expect(stateOf(await metric(registry, 'breakwater_breaker_state'), { policy: 'tenants', key: 't1' })).toBe('open');
    expect((await metric(registry, 'gobreaker_state'))?.values).toEqual([]);
  });

  it('refuses each bad option and clash with a ConfigError naming it', () => {
    const registry = new Registry();
    const b = new TestBreaker();
    const issues = (options: object) => {
      try {
        registerMetrics(b, options as never).dispose();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues;
      }
      return expect.unreachable('no ConfigError');
    };
    expect(issues({ registry: {} })).toEqual([{ path: 'registry', message: 'expected a prom-client Registry' }]);
    expect(issues({ registry, prefix: 'a-b_' })).toEqual([{ path: 'prefix', message: 'expected a Prometheus metric name prefix' }]);
    expect(issues({ registry, prefix: 'shop-' }).map((i) => i.path)).toEqual(['prefix']);
    for (const taken of ['le', 'name', 'key', 'result', 'policy', 'state']) {
      expect(issues({ registry, labels: { [taken]: 'x' } })).toEqual([{ path: `labels.${taken}`, message: 'expected a free Prometheus label name' }]);
    }
    expect(issues({ registry, labels: { 'team-name': 'x', ok: 'y' } })).toEqual([{ path: 'labels.team-name', message: 'expected a free Prometheus label name' }]);
    registerMetrics(b, { registry, prefix: '' }).dispose();
    registerMetrics(b, { registry, labels: { service: 's' } });
    expect(issues({ registry })).toEqual([
      { path: 'labels', message: 'metric breakwater_breaker_state is already registered with labels (policy,state,service), not (policy,state)' },
    ]);
    const other = new Registry();
    new Counter({ name: 'breakwater_breaker_state', help: 'not ours', registers: [other] });
    expect(issues({ registry: other })).toEqual([{ path: 'prefix', message: 'metric breakwater_breaker_state is already registered by someone else' }]);
  });

  it('a registration refused on a later metric leaves none of its metrics in the registry', async () => {
    const registry = new Registry();
    new Counter({ name: 'breakwater_retries_total', help: 'not ours', registers: [registry] });
    expect(() => registerMetrics(new TestBreaker(), { registry })).toThrow('metric breakwater_retries_total is already registered by someone else');
    expect((await registry.getMetricsAsJSON()).map((m) => m.name)).toEqual(['breakwater_retries_total']);
    registry.removeSingleMetric('breakwater_retries_total');
    registerMetrics(new TestBreaker(), { registry }).dispose();
    expect(await registry.getMetricsAsJSON()).toEqual([]);
  });

  it('warns once when two policies of one name publish on one registry, and not after the first is disposed', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const registry = new Registry();
      const first = registerMetrics(new TestBreaker({ name: 'same' }), { registry });
      expect(warn).not.toHaveBeenCalled();
      const second = registerMetrics(new TestBreaker({ name: 'same' }), { registry });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toContain('two policies named "same"');
      expect(warn.mock.calls[0]![1]).toEqual({ code: 'BREAKWATER_DUPLICATE_POLICY_NAME' });
      registerMetrics(new TestBreaker({ name: 'same' }), { registry: new Registry() }); // another registry: no clash
      registerMetrics(new TestBreaker({ name: 'other' }), { registry });
      expect(warn).toHaveBeenCalledTimes(1);
      second.dispose();
      first.dispose();
      const third = registerMetrics(new TestBreaker({ name: 'same' }), { registry });
      expect(warn).toHaveBeenCalledTimes(1); // alone again
      registerMetrics(pipeOf('dup', 'dup'), { registry: new Registry() });
      expect(warn).toHaveBeenCalledTimes(2); // two of one name in one pipeline
      third.dispose();
    } finally {
      warn.mockRestore();
    }
  });
});

/** A stand-in pipeline whose policies carry the given names. */
function pipeOf(...names: string[]): { name: string; events$: EventSource['events$']; policies: { name: string; events$: EventSource['events$'] }[] } {
  const source = new EventSource();
  return { name: 'pipeline', events$: source.events$, policies: names.map((name) => ({ name, events$: source.events$ })) };
}
