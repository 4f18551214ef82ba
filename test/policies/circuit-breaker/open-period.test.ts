/**
 * An open period that grows with each opening in a row, as resilience4j's `waitIntervalFunctionInOpenState`
 * (an `IntervalFunction` applied to the opening number, 1 for the first opening after closed, one more for each
 * reopening from half-open, back to 1 after a close) and Polly's `BreakDurationGenerator` (whose
 * `HalfOpenAttempts` is our opening number − 1).
 */
import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, circuitBreaker, type CircuitBreakerOptions, type CircuitBreakerStats } from '../../../api/index.js';
import { fromConfig } from '../../../api/config.js';
import { TestClock } from '../../../lib/testing.js';
import { constant, exponential, linear } from '../../../policies/retry/backoff.js';
import type { CircuitBreakerPolicy } from '../../../policies/circuit-breaker/circuit-breaker.js';
import { T0 } from '../../helpers/breakers.js';
import { issuesOf } from '../../helpers/config-issues.js';

function setup(options: Omit<CircuitBreakerOptions, 'trip' | 'strategy' | 'threshold'>) {
  const clock = new TestClock(T0);
  return { clock, b: circuitBreaker({ trip: 'consecutiveFailures', threshold: 1, clock, ...options } as CircuitBreakerOptions) };
}

/** How long the breaker sheds now: the `retryAfterMs` of the rejection. */
function retryAfter(b: CircuitBreakerPolicy): number | undefined {
  try {
    b.allow().release();
  } catch (e) {
    if (e instanceof BrokenCircuitError) return e.retryAfterMs;
    throw e;
  }
  return undefined;
}

/** Waits out the open period and fails the probe: the breaker opens again. */
async function reopen(clock: TestClock, b: CircuitBreakerPolicy): Promise<void> {
  await clock.advance(retryAfter(b)!);
  b.allow().failure();
}

describe('circuitBreaker: a growing open period', () => {
  it('an exponential backoff: 1 s, 2 s, 4 s, 8 s, then its max, for each opening in a row', async () => {
    const { clock, b } = setup({ openMs: exponential({ initial: 1_000, multiplier: 2, max: 8_000, jitter: 'none' }) });
    b.allow().failure();
    const periods = [retryAfter(b)];
    for (let i = 0; i < 4; i++) {
      await reopen(clock, b);
      periods.push(retryAfter(b));
    }
    expect(periods).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
  });

  it('the breaker stays open for exactly the period: shed at period − 1, a probe at the period', async () => {
    const { clock, b } = setup({ openMs: linear(1_000, 500) });
    b.allow().failure();
    await reopen(clock, b); // second opening: 1 500 ms
    await clock.advance(1_499);
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    await clock.advance(1);
    b.allow().success();
    expect(b.state).toBe('closed');
  });

  it('goes back to the first period once the breaker closes', async () => {
    const { clock, b } = setup({ openMs: exponential({ initial: 1_000, max: 60_000, jitter: 'none' }) });
    b.allow().failure();
    await reopen(clock, b);
    await reopen(clock, b);
    expect(retryAfter(b)).toBe(4_000);
    await clock.advance(4_000);
    b.allow().success(); // closed
    b.allow().failure();
    expect(retryAfter(b)).toBe(1_000);
  });

  it('a function gets the opening number and the figures the breaker tripped on', async () => {
    const seen: [number, CircuitBreakerStats][] = [];
    const { clock, b } = setup({ openMs: (n: number, s: CircuitBreakerStats) => (seen.push([n, s]), n * 100) });
    b.allow().success();
    b.allow().failure();
    expect(retryAfter(b)).toBe(100);
    await reopen(clock, b);
    expect(retryAfter(b)).toBe(200);
    expect(seen.map(([n]) => n)).toEqual([1, 2]);
    expect(seen[0]![1]).toMatchObject({ total: 2, failures: 1 });
  });

  it('maxOpenMs cuts every period; a backoff without it is cut at its own max', async () => {
    const { clock, b } = setup({ openMs: (n: number) => 1_000 * 10 ** n, maxOpenMs: 50_000 });
    b.allow().failure();
    expect(retryAfter(b)).toBe(10_000);
    await reopen(clock, b);
    expect(retryAfter(b)).toBe(50_000);
    const c = setup({ openMs: exponential({ initial: 1_000, multiplier: 100, max: 30_000, jitter: 'none' }), maxOpenMs: 20_000 });
    c.b.allow().failure();
    await reopen(c.clock, c.b);
    expect(retryAfter(c.b)).toBe(20_000); // maxOpenMs below the backoff's max wins
  });

  it('a bad result or a throw keeps the previous period (5 000 ms before the first)', async () => {
    const results: unknown[] = [Number.NaN, 700, -1, Infinity, 'x'];
    const { clock, b } = setup({
      openMs: () => {
        const r = results.shift();
        if (r === 'x') throw new Error('bad generator');
        return r as number;
      },
    });
    b.allow().failure();
    const periods = [retryAfter(b)];
    for (let i = 0; i < 4; i++) {
      await reopen(clock, b);
      periods.push(retryAfter(b));
    }
    expect(periods).toEqual([5_000, 700, 700, 700, 700]);
  });

  it("a jittered backoff draws from the breaker's random", async () => {
    const { b } = setup({ openMs: exponential({ initial: 1_000, max: 8_000, jitter: 'full' }), random: () => 0.25 });
    b.allow().failure();
    expect(retryAfter(b)).toBe(250);
    const c = setup({ openMs: constant(3_000) }).b;
    c.allow().failure();
    expect(retryAfter(c)).toBe(3_000);
  });

  it('a half-open wait that times out counts as an opening, as a failed probe does', async () => {
    const { clock, b } = setup({ openMs: linear(1_000, 1_000), maxHalfOpenMs: 100 });
    b.allow().failure();
    await clock.advance(1_000);
    b.allow(); // the probe never answers
    await clock.advance(101);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // reopened: the second opening
    expect(retryAfter(b)).toBe(2_000);
  });

  it('the opening count survives a snapshot', async () => {
    const { clock, b } = setup({ openMs: linear(1_000, 1_000) });
    b.allow().failure();
    await reopen(clock, b);
    const s = JSON.parse(JSON.stringify(b.snapshot()));
    expect(s.openings).toBe(2);
    const again = setup({ openMs: linear(1_000, 1_000), initialState: s });
    await again.clock.advanceTo(s.retryAt);
    again.b.allow().failure();
    expect(retryAfter(again.b)).toBe(3_000);
  });

  it('reconfigure takes a new openMs from the next opening', async () => {
    const { clock, b } = setup({ openMs: 1_000 });
    b.allow().failure();
    b.reconfigure({ trip: 'consecutiveFailures', threshold: 1, openMs: linear(1_000, 4_000) });
    expect(retryAfter(b)).toBe(1_000); // this opening keeps its period
    await reopen(clock, b);
    expect(retryAfter(b)).toBe(5_000);
  });

  it('refuses a bad openMs or maxOpenMs', () => {
    const message = 'expected a number of milliseconds > 0, a backoff (constant, linear, exponential) or a function (openings, stats) => ms';
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', openMs: 'long' as never }))).toEqual([{ path: 'openMs', message }]);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', openMs: {} as never }))).toEqual([{ path: 'openMs', message }]);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', openMs: 0 }))).toEqual([{ path: 'openMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', maxOpenMs: -1 }))).toEqual([{ path: 'maxOpenMs', message: 'expected a number greater than 0' }]);
  });

  it('fromConfig takes a growing openMs as a backoff in data', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig(
      {
        policies: [
          {
            type: 'circuitBreaker',
            strategy: 'consecutiveFailures',
            threshold: 1,
            window: { type: 'count', size: 10 },
            openMs: { kind: 'exponential', initial: 1_000, max: 4_000, jitter: 'none' },
          },
        ],
      },
      {},
      { clock },
    );
    const b = p.pipeline.policies[0] as CircuitBreakerPolicy;
    b.allow().failure();
    expect(retryAfter(b)).toBe(1_000);
    for (let i = 0; i < 3; i++) await reopen(clock, b);
    expect(retryAfter(b)).toBe(4_000);
    expect(b.snapshot().calls).toEqual({ size: 10, outcomes: [1] });
  });
});
