import { context, trace, TraceFlags, type Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { policy } from '../../../api/builder.js';
import { ConfigError, TimeoutError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { constant } from '../../../policies/retry/index.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { rateLimiter, tokenBucket } from '../../../policies/rate-limiter/index.js';
import { bulkhead } from '../../../policies/bulkhead/index.js';
import { keyedBreaker } from '../../../policies/breaker-registry/index.js';
import { registerOtelTracing, SPAN_EVENTS } from '../../../integrations/otel/index.js';
import { useTracing } from '../../helpers/tracing.js';

const { exporter, tracer, silent } = useTracing();

/** Runs `body` inside a new active span and returns that span as exported. */
async function traced(body: () => Promise<unknown>): Promise<ReadableSpan> {
  exporter.reset();
  await tracer.startActiveSpan('request', async (span) => {
    try {
      await body();
    } catch {
      // the span's events are what the tests read
    } finally {
      span.end();
    }
  });
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

/** The span's events as `[name, attributes]` pairs. */
function eventsOf(span: ReadableSpan): Array<[string, Record<string, unknown>]> {
  return span.events.map((e) => [e.name, { ...e.attributes }]);
}

describe('registerOtelTracing', () => {
  it('adds an event for each attempt of a retry on the caller’s span, with the proposed retry.* names', async () => {
    const clock = new TestClock();
    const p = policy({ clock }).retry({ name: 'payments-retry', maxAttempts: 3, backoff: constant(0) });
    const handle = registerOtelTracing(p);
    let calls = 0;
    const span = await traced(() =>
      p.execute(async () => {
        if (++calls < 3) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
        return 'ok';
      }),
    );
    handle.dispose();
    expect(eventsOf(span)).toEqual([
      [SPAN_EVENTS.attempt, { 'breakwater.policy.name': 'payments-retry', 'retry.name': 'payments-retry', 'retry.attempt': 1, 'retry.result': 'retry', 'breakwater.retry.delay': 0, 'error.type': 'ECONNRESET' }],
      [SPAN_EVENTS.attempt, { 'breakwater.policy.name': 'payments-retry', 'retry.name': 'payments-retry', 'retry.attempt': 2, 'retry.result': 'retry', 'breakwater.retry.delay': 0, 'error.type': 'ECONNRESET' }],
      [SPAN_EVENTS.attempt, { 'breakwater.policy.name': 'payments-retry', 'retry.name': 'payments-retry', 'retry.attempt': 3, 'retry.result': 'success' }],
    ]);
  });

  it('records a give-up with its reason, and a fallback that answered, with error.type', async () => {
    const clock = new TestClock();
    const p = policy({ clock }).retry({ name: 'r', maxAttempts: 2, backoff: constant(0) }).fallback(() => 'cached', { name: 'fb' });
    using _ = registerOtelTracing(p);
    const span = await traced(() =>
      p.execute(async () => {
        throw new RangeError('bad');
      }),
    );
    const names = eventsOf(span).map(([n]) => n);
    expect(names).toEqual([SPAN_EVENTS.attempt, SPAN_EVENTS.attempt, SPAN_EVENTS.fallback]);
    expect(eventsOf(span)[1]![1]).toMatchObject({ 'retry.result': 'give_up', 'retry.attempt': 2, 'breakwater.retry.reason': 'maxAttempts', 'error.type': 'RangeError' });
    expect(eventsOf(span)[2]![1]).toEqual({ 'breakwater.policy.name': 'fb', 'breakwater.fallback.handler': 0, 'error.type': 'RangeError' });
  });

  it('records a timeout with timeout.name and timeout.duration in seconds', async () => {
    const clock = new TestClock();
    const p = policy({ clock }).timeout({ ms: 250, name: 'slow' });
    using _ = registerOtelTracing(p);
    const span = await traced(async () => {
      const settled = expect(p.execute(() => new Promise<never>(() => undefined))).rejects.toBeInstanceOf(TimeoutError);
      await clock.advance(250);
      await settled;
    });
    expect(eventsOf(span)).toEqual([[SPAN_EVENTS.timeout, { 'breakwater.policy.name': 'slow', 'timeout.name': 'slow', 'timeout.duration': 0.25, 'breakwater.timeout.mode': 'aggressive' }]]);
  });

  it('records the breaker’s state change on the span of the call that tripped it, and its rejections on later calls’ spans', async () => {
    const clock = new TestClock();
    const breaker = circuitBreaker({ name: 'payments', trip: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    using _ = registerOtelTracing(breaker);
    const tripping = await traced(() =>
      breaker.execute(async () => {
        throw new Error('down');
      }),
    );
    expect(eventsOf(tripping)).toEqual([
      [SPAN_EVENTS.stateChange, { 'breakwater.policy.name': 'payments', 'circuitbreaker.name': 'payments', 'circuitbreaker.state': 'open', 'breakwater.breaker.previous_state': 'closed', 'breakwater.breaker.reason': 'threshold', 'breakwater.breaker.figure': 1 }],
    ]);
    const refused = await traced(() => breaker.execute(async () => 'never run'));
    expect(eventsOf(refused)).toEqual([[SPAN_EVENTS.breakerRejected, expect.objectContaining({ 'circuitbreaker.name': 'payments', 'circuitbreaker.state': 'open' })]]);
  });

  it('names the key of a keyed breaker’s breakers in breakwater.policy.key, under the keyed breaker’s name', async () => {
    const clock = new TestClock();
    const k = keyedBreaker((ctx) => String(ctx.meta['host']), { name: 'hosts', defaults: { trip: 'consecutiveFailures', threshold: 1 }, clock });
    using _ = registerOtelTracing(k);
    const span = await traced(() =>
      k.execute(
        async () => {
          throw new Error('down');
        },
        { meta: { host: 'a.example' } },
      ),
    );
    expect(eventsOf(span)).toEqual([[SPAN_EVENTS.stateChange, expect.objectContaining({ 'breakwater.policy.name': 'hosts', 'breakwater.policy.key': 'a.example', 'circuitbreaker.name': 'hosts' })]]);
  });

  it('records rate-limiter and bulkhead refusals, with the call’s criticality', async () => {
    const clock = new TestClock();
    const limiter = rateLimiter({ name: 'api', algorithm: tokenBucket({ rate: 1, burst: 1 }), clock });
    const pool = bulkhead({ name: 'pool', limit: 1, queue: 0, clock });
    using _a = registerOtelTracing(limiter);
    using _b = registerOtelTracing(pool, { attributes: { service: 'checkout' } });
    const limited = await traced(async () => {
      await limiter.execute(async () => 1);
      await limiter.execute(async () => 2, { meta: { criticality: 'sheddable' } });
    });
    expect(eventsOf(limited)).toEqual([
      [SPAN_EVENTS.rateLimited, expect.objectContaining({ 'ratelimiter.name': 'api', 'ratelimiter.result': 'rejected', 'breakwater.criticality': 'sheddable' })],
    ]);
    let release: () => void = () => undefined;
    const held = pool.execute(() => new Promise<void>((r) => (release = r)));
    const full = await traced(() => pool.execute(async () => 'never run'));
    release();
    await held;
    expect(eventsOf(full)).toEqual([[SPAN_EVENTS.bulkheadRejected, { service: 'checkout', 'breakwater.policy.name': 'pool' }]]);
  });

  it('with outcomes, adds one breakwater.call event per call per policy', async () => {
    const clock = new TestClock();
    const p = policy({ clock }).timeout({ ms: 1_000, name: 't' }).retry({ name: 'r', maxAttempts: 1 });
    using _ = registerOtelTracing(p, { outcomes: true });
    const span = await traced(() => p.execute(async () => 'ok'));
    const calls = eventsOf(span).filter(([n]) => n === SPAN_EVENTS.outcome);
    expect(calls.map(([, a]) => [a['breakwater.policy.name'], a['breakwater.call.outcome']]).sort()).toEqual([
      ['r', 'success'],
      ['t', 'success'],
    ]);
  });

  it('adds nothing without an active span, on a span that does not record, or after dispose', async () => {
    const clock = new TestClock();
    const p = policy({ clock }).retry({ name: 'r', maxAttempts: 2, backoff: constant(0) });
    const handle = registerOtelTracing(p);
    let added = 0;
    const fake = {
      isRecording: () => false,
      addEvent: () => void added++,
      spanContext: () => ({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: TraceFlags.NONE }),
    } as unknown as Span;
    const failOnce = () => {
      let n = 0;
      return async () => {
        if (n++ === 0) throw new Error('once');
        return 'ok';
      };
    };
    await expect(p.execute(failOnce())).resolves.toBe('ok');
    await context.with(trace.setSpan(context.active(), fake), () => p.execute(failOnce()));
    expect(added).toBe(0);
    exporter.reset();
    await silent.startActiveSpan('unsampled', async (span) => {
      expect(span.isRecording()).toBe(false);
      await p.execute(failOnce());
      span.end();
    });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    handle.dispose();
    const after = await traced(() => p.execute(failOnce()));
    expect(after.events).toHaveLength(0);
  });

  it('refuses bad options with a ConfigError naming the option', () => {
    const p = policy().retry({ maxAttempts: 2 });
    expect(() => registerOtelTracing(p, { attributes: { 'breakwater.policy.name': 'x' } })).toThrow(ConfigError);
    expect(() => registerOtelTracing(p, { attributes: { 'breakwater.policy.name': 'x' } })).toThrow(/attributes/);
    expect(() => registerOtelTracing(p, { outcomes: 'yes' } as never)).toThrow(/outcomes/);
    expect(() => registerOtelTracing(p, { sampled: true } as never)).toThrow(/sampled/);
  });
});
