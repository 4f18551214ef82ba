import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  adaptiveLimiter,
  AdaptiveLimiterPolicy,
  BulkheadRejectedError,
  ConcurrencyLimitedError,
  ConfigError,
  EventSource,
  isConcurrencyLimitedError,
  policy,
  sreBreaker,
  TimeoutError,
  type LimitChangedEvent,
  type PolicyEvent,
} from '../../../lib/index.js';
import { TestClock } from '../../../lib/testing.js';
import { deferred, track } from '../../helpers/track.js';

const START = 1_700_000_000_000;

afterEach(() => vi.restoreAllMocks());

/** Every event of `p`, as it comes. */
function eventsOf(p: { events$: { subscribe(f: (e: PolicyEvent) => void): unknown } }): PolicyEvent[] {
  const out: PolicyEvent[] = [];
  p.events$.subscribe((e) => out.push(e));
  return out;
}

const changes = (events: PolicyEvent[]) => events.filter((e): e is LimitChangedEvent => e.type === 'limitChanged');

/** Resolves after `ms` on `clock`. */
const later = <T>(clock: TestClock, ms: number, value: T) => new Promise<T>((r) => clock.setTimeout(() => r(value), ms));

describe('adaptiveLimiter', () => {
  it('admits up to its limit and sheds the next call at once with ConcurrencyLimitedError', async () => {
    const limiter = adaptiveLimiter({ initialLimit: 3, name: 'users' });
    const gates = [deferred<number>(), deferred<number>(), deferred<number>()];
    const running = gates.map((g) => limiter.execute(() => g.promise));
    expect(limiter.inFlight).toBe(3);
    const shed = await limiter.execute(() => 4).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(shed).toBeInstanceOf(ConcurrencyLimitedError);
    expect(shed).toMatchObject({ code: 'CONCURRENCY_LIMITED', policy: 'users', limit: 3, retryAfterMs: undefined });
    expect(isConcurrencyLimitedError(shed)).toBe(true);
    gates[0]!.resolve(1);
    await running[0];
    expect(limiter.inFlight).toBe(2);
    await expect(limiter.execute(() => 5)).resolves.toBe(5);
    gates[1]!.resolve(2);
    gates[2]!.resolve(3);
    await expect(Promise.all(running)).resolves.toEqual([1, 2, 3]);
    expect(limiter.inFlight).toBe(0);
  });

  it('frees the slot of an operation that throws synchronously or returns a plain value', async () => {
    const limiter = adaptiveLimiter({ initialLimit: 1 });
    await expect(
      limiter.execute(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(limiter.inFlight).toBe(0);
    await expect(limiter.execute(() => 'plain')).resolves.toBe('plain');
    expect(limiter.inFlight).toBe(0);
  });

  it('holds the slot until the operation itself settles, though an inner timeout gave up on it', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, clock });
    const p = policy({ clock }).timeout(10).use(limiter);
    // The operation ignores its signal: the dependency is still working for it.
    const call = track(p.execute(() => later(clock, 50, 'late')), clock);
    await clock.advance(10);
    expect((await call.settled).ok).toBe(false);
    expect(limiter.inFlight).toBe(1);
    await expect(limiter.execute(() => 'next')).rejects.toBeInstanceOf(ConcurrencyLimitedError);
    await clock.advance(40);
    expect(limiter.inFlight).toBe(0);
    await expect(limiter.execute(() => 'next')).resolves.toBe('next');
  });

  it('takes no slot for a call its caller already gave up', async () => {
    const limiter = adaptiveLimiter({ initialLimit: 1 });
    const ac = new AbortController();
    const gone = new Error('gone');
    const gate = deferred();
    const held = limiter.execute(() => gate.promise, { signal: ac.signal });
    ac.abort(gone);
    await expect(held).rejects.toBe(gone);
    // The abandoned operation still holds its slot; a pipeline whose caller already left is refused its reason, not a slot.
    const outer = new AbortController();
    outer.abort(gone);
    await expect(policy().use(limiter).execute(() => 1, { signal: outer.signal })).rejects.toBe(gone);
    gate.resolve();
    await gate.promise;
    await Promise.resolve();
    expect(limiter.inFlight).toBe(0);
  });

  it('is a shed rejection: not retried, not counted by a breaker, answered by a fallback, rejected in the outcome', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, clock });
    const gate = deferred<string>();
    const holding = limiter.execute(() => gate.promise);
    const breaker = sreBreaker({ clock });
    const p = policy({ clock }).use(limiter).retry({ maxAttempts: 3 }).use(breaker).fallback(() => 'fallback');
    const events = eventsOf(p);
    await expect(p.execute(() => 'real')).resolves.toBe('fallback');
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events.filter((e) => e.type === 'outcome').map((e) => [e.policy, (e as { result: string }).result])).toEqual([
      ['adaptiveLimiter', 'rejected'],
      ['retry', 'rejected'],
      ['breaker', 'rejected'],
      ['fallback', 'fallback'],
    ]);
    expect(breaker.stats().total).toBe(0);
    gate.resolve('done');
    await holding;
  });

  it('reports a shed call: a rejected event with the limit and the calls in flight, and its outcome', async () => {
    const limiter = adaptiveLimiter({ initialLimit: 1, name: 'db' });
    const events = eventsOf(limiter);
    const gate = deferred();
    const held = limiter.execute(() => gate.promise);
    await limiter.execute(() => 1).catch(() => undefined);
    expect(events).toEqual([
      { type: 'rejected', policy: 'db', reason: 'concurrencyLimited', limit: 1, inFlight: 1 },
      { type: 'outcome', policy: 'db', result: 'rejected', durationMs: 0, error: expect.any(ConcurrencyLimitedError) },
    ]);
    gate.resolve();
    await held;
  });

  it('once a window has measured the response time, a shed call says to retry after it, rounded up', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, minLimit: 1, maxLimit: 1, minSamples: 1, windowMs: 1, name: 'db', clock });
    for (let i = 0; i < 2; i++) {
      const p = limiter.allow();
      await clock.advance(12);
      p.success();
    }
    const events = eventsOf(limiter);
    const held = limiter.allow();
    let shed: unknown;
    try {
      limiter.allow();
    } catch (e) {
      shed = e;
    }
    expect(shed).toBeInstanceOf(ConcurrencyLimitedError);
    expect((shed as ConcurrencyLimitedError).retryAfterMs).toBe(12);
    expect(events[0]).toEqual({ type: 'rejected', policy: 'db', reason: 'concurrencyLimited', limit: 1, inFlight: 1, retryAfterMs: 12 });
    held.release();
  });

  it('builds no event object while nobody listens', async () => {
    const emit = vi.spyOn(EventSource.prototype, 'emit');
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, minSamples: 1, windowMs: 1, clock });
    for (let i = 0; i < 5; i++) await Promise.all([limiter.execute(() => later(clock, 5, i)), clock.advance(5)]);
    await Promise.all([limiter.execute(() => later(clock, 1_000, 0), { timeout: 10 }).catch(() => 0), clock.advance(1_000)]);
    const gate = deferred();
    const held = limiter.execute(() => gate.promise);
    await limiter.execute(() => 1).catch(() => undefined);
    limiter.reset();
    gate.resolve();
    await held;
    expect(emit).not.toHaveBeenCalled();
  });
});

describe('adaptiveLimiter measures', () => {
  /** Runs `n` calls one after another, each taking `ms`, ending as `end` says. */
  async function calls(limiter: ReturnType<typeof adaptiveLimiter>, clock: TestClock, n: number, ms: number, end: (ctx: { signal: AbortSignal }) => Promise<unknown>) {
    for (let i = 0; i < n; i++) {
      const call = track(limiter.execute((ctx) => later(clock, ms, ctx).then(end)), clock);
      await clock.advance(ms);
      await call.settled;
    }
  }

  it('answered calls: their mean response time moves the limit once a window has its samples', async () => {
    const clock = new TestClock(START);
    // One call at a time: a limit of 2 is half used, so an answer near the baseline raises it by 4.
    const limiter = adaptiveLimiter({ initialLimit: 2, minSamples: 3, windowMs: 50, clock });
    const events = eventsOf(limiter);
    await calls(limiter, clock, 3, 20, async () => 'ok');
    // Three answers of 20 ms, the window (opened at the start) 60 ms old: the first baseline, and growth.
    expect(changes(events)).toEqual([
      { type: 'limitChanged', policy: 'adaptiveLimiter', from: 2, to: 6, reason: 'increase', rttMs: 20, baselineMs: 20, maxInFlight: 1, samples: 3, drops: 0 },
    ]);
    expect(limiter.stats()).toEqual({ limit: 6, inFlight: 0, rttMs: 20, baselineMs: 20, slowStart: true });
  });

  it('a timed-out call is a drop, whether its own deadline or an enclosing one ended it', async () => {
    for (const inner of [true, false]) {
      const clock = new TestClock(START);
      const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 2, windowMs: 1, clock });
      const events = eventsOf(limiter);
      const p = inner ? policy({ clock }).timeout(30).use(limiter) : limiter;
      for (let i = 0; i < 2; i++) {
        const call = track(p.execute(() => later(clock, 100, 'late'), inner ? undefined : { timeout: 30 }), clock);
        await clock.advance(100);
        expect(await call.settled).toMatchObject({ ok: false, error: expect.any(TimeoutError) });
      }
      expect(changes(events)).toEqual([
        { type: 'limitChanged', policy: 'adaptiveLimiter', from: 10, to: 9, reason: 'drop', rttMs: undefined, baselineMs: undefined, maxInFlight: 1, samples: 2, drops: 2 },
      ]);
    }
  });

  it("failures, the caller's cancellations and inner sheds are not measured; isOverload makes a failure a drop", async () => {
    const clock = new TestClock(START);
    const overloaded = new Error('503');
    const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 2, windowMs: 1, isOverload: (e) => e === overloaded, clock });
    const events = eventsOf(limiter);
    await calls(limiter, clock, 3, 5, () => Promise.reject(new Error('500')));
    await calls(limiter, clock, 3, 5, () => Promise.reject(new BulkheadRejectedError('inner')));
    for (let i = 0; i < 3; i++) {
      const ac = new AbortController();
      const call = track(limiter.execute((ctx) => later(clock, 50, ctx), { signal: ac.signal }), clock);
      await clock.advance(5);
      ac.abort(new Error('client gone'));
      await call.settled;
      await clock.advance(45);
    }
    expect(changes(events)).toEqual([]);
    await calls(limiter, clock, 2, 5, () => Promise.reject(overloaded));
    expect(changes(events).map((e) => [e.reason, e.drops])).toEqual([['drop', 2]]);
    expect(limiter.inFlight).toBe(0);
  });

  it('an isOverload that throws counts the failure as a drop', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({
      initialLimit: 10,
      minSamples: 2,
      windowMs: 1,
      isOverload: () => {
        throw new Error('buggy');
      },
      clock,
    });
    await calls(limiter, clock, 2, 5, () => Promise.reject(new Error('500')));
    expect(limiter.limit).toBe(9);
  });

  it('does not measure answers within the clock resolution (a zero baseline would make any later answer look infinitely slow)', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 4, minSamples: 2, windowMs: 1, clock });
    for (let i = 0; i < 5; i++) await limiter.execute(() => 'instant');
    expect(limiter.stats()).toMatchObject({ limit: 4, rttMs: undefined, baselineMs: undefined });
  });

  it('AIMD counts an answer slower than slowMs as a drop', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ algorithm: { kind: 'aimd', slowMs: 50 }, initialLimit: 10, minSamples: 2, windowMs: 1, clock });
    await calls(limiter, clock, 2, 40, async () => 'ok');
    expect(limiter.limit).toBe(10);
    await calls(limiter, clock, 2, 60, async () => 'ok');
    expect(limiter.limit).toBe(9);
  });

  it('reset() goes back to the initial limit, in slow start, with nothing measured', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 2, windowMs: 1, clock });
    const events = eventsOf(limiter);
    await calls(limiter, clock, 2, 20, () => Promise.reject(new TimeoutError('t')));
    expect(limiter.limit).toBe(9);
    limiter.reset();
    expect(limiter.stats()).toEqual({ limit: 10, inFlight: 0, rttMs: undefined, baselineMs: undefined, slowStart: true });
    expect(changes(events).at(-1)).toEqual({ type: 'limitChanged', policy: 'adaptiveLimiter', from: 9, to: 10, reason: 'reset', rttMs: undefined, baselineMs: undefined, maxInFlight: 0, samples: 0, drops: 0 });
  });

  it('tells a shed caller when a slot is likely to free: the last window mean, rounded up', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, minSamples: 2, windowMs: 1, clock });
    await calls(limiter, clock, 2, 15, async () => 'ok');
    expect(limiter.stats().rttMs).toBe(15);
    const gates = Array.from({ length: limiter.limit }, () => deferred());
    const held = gates.map((g) => limiter.execute(() => g.promise));
    await expect(limiter.execute(() => 1)).rejects.toMatchObject({ retryAfterMs: 15 });
    for (const g of gates) g.resolve();
    await Promise.all(held);
  });
});

describe('policy().adaptiveLimit()', () => {
  it("wraps the chain so far in a limiter on the builder's clock", async () => {
    const clock = new TestClock(START);
    const p = policy({ clock }).timeout(30).adaptiveLimit({ initialLimit: 5, minSamples: 2, windowMs: 1, name: 'users' });
    const limiter = p.policies[1];
    expect(p.policies.map((x) => x.name)).toEqual(['timeout', 'users']);
    expect(limiter).toBeInstanceOf(AdaptiveLimiterPolicy);
    // The timeout is inside the limiter: each timed-out call is a drop, measured on the virtual clock.
    for (let i = 0; i < 2; i++) {
      const call = track(p.execute(() => later(clock, 100, 'late')), clock);
      await clock.advance(100);
      await call.settled;
    }
    expect((limiter as AdaptiveLimiterPolicy).limit).toBe(4);
  });
});

describe('adaptiveLimiter permits', () => {
  it('allow() admits up to the limit and throws ConcurrencyLimitedError beyond it; each permit settles once', () => {
    const limiter = adaptiveLimiter({ initialLimit: 2 });
    const a = limiter.allow();
    const b = limiter.allow();
    expect(() => limiter.allow()).toThrow(ConcurrencyLimitedError);
    a.success();
    a.success();
    a.release();
    expect(limiter.inFlight).toBe(1);
    const c = limiter.allow();
    b.failure(new Error('x'));
    c.release();
    expect(limiter.inFlight).toBe(0);
  });

  it('a permit that fails with a TimeoutError is a drop; with another error, or released, it measures nothing', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 2, windowMs: 1, clock });
    const events = eventsOf(limiter);
    for (const end of ['failure', 'release'] as const) {
      for (let i = 0; i < 3; i++) {
        const p = limiter.allow();
        await clock.advance(5);
        if (end === 'failure') p.failure(new Error('HTTP 500'));
        else p.release();
      }
    }
    expect(changes(events)).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const p = limiter.allow();
      await clock.advance(5);
      p.failure(new TimeoutError('grpc'));
    }
    expect(changes(events).map((e) => e.reason)).toEqual(['drop']);
    expect(events.filter((e) => e.type === 'outcome').map((e) => (e as { result: string }).result)).toEqual([
      'failure',
      'failure',
      'failure',
      'cancelled',
      'cancelled',
      'cancelled',
      'timeout',
      'timeout',
    ]);
  });
});

describe('adaptiveLimiter options', () => {
  const issues = (o: unknown) => {
    try {
      adaptiveLimiter(o as never);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).issues;
    }
    throw new Error('expected a ConfigError');
  };

  it('names the option and the rule it breaks', () => {
    expect(issues({ initialLimit: 0 })).toEqual([{ path: 'initialLimit', message: 'expected an integer >= 1' }]);
    expect(issues({ initialLimit: 300 })).toEqual([{ path: 'initialLimit', message: 'must be between minLimit (1) and maxLimit (200)' }]);
    expect(issues({ minLimit: 50, maxLimit: 10, initialLimit: 20 })).toEqual([{ path: 'minLimit', message: 'must be <= maxLimit (10)' }]);
    expect(issues({ windowMs: 2_000 })).toEqual([{ path: 'windowMs', message: 'must be <= maxWindowMs (1000)' }]);
    expect(issues({ algorithm: 'bbr' })).toEqual([{ path: 'algorithm', message: "expected 'gradient', 'aimd', 'vegas' or an object with kind" }]);
    expect(issues({ algorithm: { kind: 'gradient', tolerance: 0.5 } })).toEqual([{ path: 'algorithm.tolerance', message: 'expected a finite number >= 1' }]);
    expect(issues({ algorithm: { kind: 'aimd', backoffRatio: 0.3 } })).toEqual([{ path: 'algorithm.backoffRatio', message: 'expected a number in [0.5, 1)' }]);
    expect(issues({ algorithm: { kind: 'vegas', alpha: 6, beta: 3 } })).toEqual([{ path: 'algorithm.beta', message: 'beta must exceed alpha' }]);
    expect(issues({ algorithm: { kind: 'aimd', tolerance: 2 } })).toEqual([{ path: 'algorithm.tolerance', message: 'unknown option' }]);
    expect(issues({ isOverload: 'yes' })).toEqual([{ path: 'isOverload', message: 'expected a function' }]);
    expect(issues({ limit: 5 })).toEqual([{ path: 'limit', message: 'unknown option' }]);
  });

  it('takes an algorithm by name or as an object, each with its defaults', () => {
    for (const algorithm of ['gradient', 'aimd', 'vegas', { kind: 'gradient', tolerance: 2 }, { kind: 'aimd' }, { kind: 'vegas', alpha: 2, beta: 4 }] as const) {
      expect(adaptiveLimiter({ algorithm }).limit).toBe(20);
    }
    expect(adaptiveLimiter({ algorithm: 'aimd' }).stats().baselineMs).toBeUndefined();
  });
});
