import { afterEach, describe, expect, it, vi } from 'vitest';
import { EMPTY } from 'rxjs';
import {
  adaptiveLimiter,
  AdaptiveLimiterPolicy,
  BulkheadRejectedError,
  ConcurrencyLimitedError,
  EventSource,
  executeWith,
  isConcurrencyLimitedError,
  pipe,
  policy,
  RUN,
  runNext,
  sreBreaker,
  systemClock,
  timeout,
  TimeoutError,
  type Chain,
  type ExecutionContext,
  type LimitChangedEvent,
  type Operation,
  type PolicyEvent,
} from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { deferred, rejection, track } from '../../helpers/track.js';
import { issuesOf } from '../../helpers/config-issues.js';

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
      { type: 'concurrencyRejected', policy: 'db', reason: 'concurrencyLimited', limit: 1, inFlight: 1 },
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
    expect(events[0]).toEqual({ type: 'concurrencyRejected', policy: 'db', reason: 'concurrencyLimited', limit: 1, inFlight: 1, retryAfterMs: 12 });
    held.release();
  });

  it('builds no event object while nobody listens', async () => {
    const emit = vi.spyOn(EventSource.prototype, 'emit');
    const clock = new TestClock(START);
    // maxLimit 1: the windows below cannot raise the limit, so the call made while one is held is shed.
    const limiter = adaptiveLimiter({ initialLimit: 1, maxLimit: 1, minSamples: 1, windowMs: 1, clock });
    for (let i = 0; i < 5; i++) await Promise.all([limiter.execute(() => later(clock, 5, i)), clock.advance(5)]);
    await Promise.all([limiter.execute(() => later(clock, 1_000, 0), { timeout: 10 }).catch(() => 0), clock.advance(1_000)]);
    const gate = deferred();
    const held = limiter.execute(() => gate.promise);
    await expect(limiter.execute(() => 1)).rejects.toBeInstanceOf(ConcurrencyLimitedError);
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
    // One millisecond is measured.
    await calls(limiter, clock, 2, 1, async () => 'quick');
    expect(limiter.stats()).toMatchObject({ rttMs: 1, baselineMs: 1 });
  });

  it('AIMD counts an answer slower than slowMs as a drop', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ algorithm: { kind: 'aimd', slowMs: 50 }, initialLimit: 10, minSamples: 2, windowMs: 1, clock });
    await calls(limiter, clock, 2, 40, async () => 'ok');
    expect(limiter.limit).toBe(10);
    // Exactly slowMs is not slower than it.
    await calls(limiter, clock, 2, 50, async () => 'ok');
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
    // Already at the initial limit: nothing moved, nothing is reported.
    const before = events.length;
    limiter.reset();
    expect(events.length).toBe(before);
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
    b.failure(new Error('x'));
    b.release();
    expect(limiter.inFlight).toBe(1);
    c.release();
    c.release();
    c.failure();
    c.success();
    expect(limiter.inFlight).toBe(0);
  });

  it('reports each permit once, as it settled: success, failure (with or without an error), or cancelled', () => {
    const limiter = adaptiveLimiter({ initialLimit: 3, name: 'db' });
    const events = eventsOf(limiter);
    const [a, b, c] = [limiter.allow(), limiter.allow(), limiter.allow()];
    a.success();
    a.failure(new Error('late'));
    b.failure();
    b.failure();
    c.release();
    c.success();
    expect(events.map((e) => [e.type, (e as { result?: string }).result])).toEqual([
      ['outcome', 'success'],
      ['outcome', 'failure'],
      ['outcome', 'cancelled'],
    ]);
  });

  it('isOverload judges failures only: a permit ended by an inner shed or a release is never a drop', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 1, windowMs: 1, isOverload: () => true, clock });
    const events = eventsOf(limiter);
    for (let i = 0; i < 3; i++) {
      const p = limiter.allow();
      await clock.advance(5);
      p.failure(new BulkheadRejectedError('inner'));
    }
    expect(changes(events)).toEqual([]);
    const p = limiter.allow();
    await clock.advance(5);
    p.failure(new Error('HTTP 503'));
    expect(changes(events).map((e) => [e.from, e.to, e.reason])).toEqual([[10, 9, 'drop']]);
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

/** A policy a user wrote: its `[RUN]` is `run`. */
function userPolicy(run: <R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined) => Promise<R>) {
  return {
    name: 'user',
    events$: EMPTY,
    execute<R>(op: Operation<R>): Promise<R> {
      return executeWith(this, op, undefined, systemClock);
    },
    [RUN]: run,
  };
}

describe('adaptiveLimiter inside a chain', () => {
  it('a call that reaches it after an enclosing timeout gave up takes no slot, runs nothing and measures nothing', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, minSamples: 1, windowMs: 1, clock });
    const events = eventsOf(limiter);
    let reached: Promise<unknown> | undefined;
    // Waits 20 ms before it calls the rest of the chain, however the call is doing.
    const slow = userPolicy(<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined) => {
      return new Promise<R>((resolve, reject) => {
        clock.setTimeout(() => {
          const inner = runNext(op, ctx, next);
          reached = inner;
          inner.then(resolve, reject);
        }, 20);
      });
    });
    const op = vi.fn(() => 'ran');
    const call = track(pipe(limiter, slow, timeout({ ms: 10, clock })).execute(op), clock);
    await clock.advance(10);
    expect(await rejection(call)).toBeInstanceOf(TimeoutError);
    await clock.advance(10);
    await expect(reached).rejects.toBeInstanceOf(TimeoutError);
    expect(op).not.toHaveBeenCalled();
    expect(limiter.inFlight).toBe(0);
    expect(events).toEqual([]);
  });

  it('a policy inside it that throws at once: the call rejects with its error and the slot is free', async () => {
    const limiter = adaptiveLimiter({ initialLimit: 1 });
    const broken = new Error('broken policy');
    const thrower = userPolicy(() => {
      throw broken;
    });
    await expect(pipe(thrower, limiter).execute(() => 1)).rejects.toBe(broken);
    expect(limiter.inFlight).toBe(0);
  });

  it('a policy inside it gets the operation\'s own value back, unwrapped, null included', async () => {
    const limiter = adaptiveLimiter({ initialLimit: 1 });
    const seen: unknown[] = [];
    const peek = userPolicy(<R>(op: Operation<R>, ctx: ExecutionContext) => {
      const value = op(ctx);
      seen.push(value);
      return Promise.resolve(value);
    });
    const object = { a: 1 };
    for (const value of ['plain', object, null, 0]) {
      await expect(pipe(peek, limiter).execute(() => value)).resolves.toBe(value);
      expect(limiter.inFlight).toBe(0);
    }
    expect(seen).toEqual(['plain', object, null, 0]);
    expect(seen[1]).toBe(object);
  });

  it('holds the slot until a thenable the operation returned settles, a function with a then included', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, clock });
    const gate = deferred<string>();
    const thenableFn = Object.assign(() => undefined, {
      then: (resolve: (v: string) => void, reject: (e: unknown) => void) => gate.promise.then(resolve, reject),
    });
    const call = track(pipe(timeout({ ms: 10, clock }), limiter).execute(() => thenableFn as unknown as PromiseLike<string>), clock);
    await clock.advance(10);
    expect(await rejection(call)).toBeInstanceOf(TimeoutError);
    // The timeout gave up on it; the dependency is still working on it.
    expect(limiter.inFlight).toBe(1);
    gate.resolve('late');
    await gate.promise;
    await Promise.resolve();
    expect(limiter.inFlight).toBe(0);
  });

  it('an operation call a policy inside it makes after the call ended is not counted', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 2, clock });
    const late: Promise<unknown>[] = [];
    // Answers from the first operation call and makes another 5 ms later (a fire-and-forget refresh).
    const refresh = userPolicy(<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined) => {
      clock.setTimeout(() => late.push(Promise.resolve(op(ctx))), 5);
      return runNext(op, ctx, next);
    });
    const call = track(pipe(refresh, limiter).execute(() => later(clock, 1, 'first')), clock);
    await clock.advance(1);
    expect(await call.settled).toMatchObject({ ok: true, value: 'first' });
    expect(limiter.inFlight).toBe(0);
    await clock.advance(4);
    expect(late).toHaveLength(1);
    await clock.advance(1);
    await expect(Promise.all(late)).resolves.toEqual(['first']);
    await Promise.resolve();
    expect(limiter.inFlight).toBe(0);
    const permits = [limiter.allow(), limiter.allow()];
    expect(() => limiter.allow()).toThrow(ConcurrencyLimitedError);
    for (const p of permits) p.release();
  });
});

/**
 * One sampling window on permits: waits `rtt` (so the window is old enough), takes `inFlight` permits and,
 * `rtt` later, settles the last one taken (its in-flight count is the window's maximum) and releases the others
 * unmeasured. With `minSamples: 1` that one call closes the window.
 */
async function window(limiter: AdaptiveLimiterPolicy, clock: TestClock, rtt: number, inFlight: number, end: 'answer' | 'timeout' = 'answer') {
  await clock.advance(rtt);
  const permits = Array.from({ length: inFlight }, () => limiter.allow());
  await clock.advance(rtt);
  const last = permits.pop()!;
  if (end === 'answer') last.success();
  else last.failure(new TimeoutError('dependency'));
  for (const p of permits) p.release();
}
const moves = (events: PolicyEvent[]) => changes(events).map((e) => [e.from, e.to, e.reason]);

describe('adaptiveLimiter slow start and the floor', () => {
  it('doubles a fully used limit each window until a window shows queueing, then grows by queueSize', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ algorithm: { kind: 'gradient', queueSize: 1 }, initialLimit: 1, minSamples: 1, windowMs: 1, clock });
    const events = eventsOf(limiter);
    await window(limiter, clock, 10, 1); // 1 + 1 is no more than doubling: an increase
    await window(limiter, clock, 10, 2); // full: doubled
    await window(limiter, clock, 10, 4); // full: doubled
    await window(limiter, clock, 10, 4); // half used: no doubling
    expect(limiter.stats().slowStart).toBe(true);
    // 13 ms against a 10 ms baseline: beyond √1.5 of it, calls queue (not yet enough to lower the limit); slow start ends.
    await window(limiter, clock, 13, 9);
    expect(limiter.stats().slowStart).toBe(false);
    await window(limiter, clock, 10, 10); // full, but out of slow start: + queueSize
    expect(moves(events)).toEqual([
      [1, 2, 'increase'],
      [2, 4, 'slowStart'],
      [4, 8, 'slowStart'],
      [8, 9, 'increase'],
      [9, 10, 'increase'],
      [10, 11, 'increase'],
    ]);
  });

  it('back at the floor it is in slow start again; the last measured response time outlives a window of drops', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ algorithm: { kind: 'gradient', queueSize: 1 }, initialLimit: 6, minLimit: 5, minSamples: 1, windowMs: 1, clock });
    const events = eventsOf(limiter);
    await window(limiter, clock, 10, 1); // app-limited: the baseline, and no move
    await window(limiter, clock, 30, 6); // three times the baseline: 6 × (1 − 0.2 × 0.5) = 5.4
    expect(limiter.stats()).toMatchObject({ limit: 5, slowStart: false, rttMs: 30, baselineMs: 10 });
    await window(limiter, clock, 10, 5, 'timeout'); // 5.4 × 0.9 is under the floor: held at 5
    expect(limiter.stats()).toMatchObject({ limit: 5, slowStart: true, rttMs: 30 });
    expect(moves(events)).toEqual([[6, 5, 'queueing']]);
  });

  it('at the floor after its warm-up, a slow window raises the baseline to the window over the tolerance', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 1, minLimit: 1, maxLimit: 1, minSamples: 1, windowMs: 1, clock });
    for (let i = 0; i < 10; i++) await window(limiter, clock, 10, 1);
    expect(limiter.stats().baselineMs).toBe(10);
    await window(limiter, clock, 30, 1);
    expect(limiter.stats().baselineMs).toBe(20);
  });
});

type Crit = 'critical' | 'default' | 'sheddable';

describe('adaptiveLimiter by criticality', () => {
  /** A limiter held at `limit` (the window never fills), for admission alone. */
  const fixed = (limit: number, more: object = {}) =>
    adaptiveLimiter({ algorithm: 'aimd', initialLimit: limit, minLimit: limit, maxLimit: limit, minSamples: 1_000, ...more });

  it('under overload refuses sheddable calls before any critical one, and critical calls least', async () => {
    const clock = new TestClock(START);
    const random = seededRandom(5);
    const limiter = fixed(10, { clock, reserve: { default: 0.3, sheddable: 0.6 } });
    const refused: Crit[] = [];
    const offered = { critical: 0, default: 0, sheddable: 0 };
    const calls: Promise<unknown>[] = [];
    // 1 call per ms holding its slot 20 ms: twice the limit.
    for (let i = 0; i < 400; i++) {
      const r = random();
      const c: Crit = r < 0.2 ? 'critical' : r < 0.6 ? 'default' : 'sheddable';
      offered[c]++;
      calls.push(
        limiter
          .execute(() => new Promise<void>((ok) => clock.setTimeout(ok, 20)), { meta: { criticality: c } })
          .catch((e: unknown) => {
            if (e instanceof ConcurrencyLimitedError) refused.push(c);
          }),
      );
      await clock.advance(1);
    }
    await clock.runAll();
    await Promise.all(calls);
    const share = (c: Crit) => refused.filter((x) => x === c).length / offered[c];
    expect(refused[0]).toBe('sheddable');
    expect(refused.indexOf('sheddable')).toBeLessThan(refused.indexOf('default'));
    expect(share('sheddable')).toBeGreaterThan(share('default'));
    expect(share('default')).toBeGreaterThan(share('critical'));
  });

  it('keeps the reserve of each criticality, and says in the event which one it refused', async () => {
    const limiter = fixed(10, { reserve: { default: 0.2, sheddable: 0.5 } });
    const events = eventsOf(limiter);
    const gate = deferred();
    const run = (c: Crit) => limiter.execute(() => gate.promise, { meta: { criticality: c } });
    const kept = Array.from({ length: 5 }, () => run('sheddable'));
    await expect(run('sheddable')).rejects.toBeInstanceOf(ConcurrencyLimitedError);
    kept.push(run('default'), run('default'), run('default'));
    await expect(run('default')).rejects.toBeInstanceOf(ConcurrencyLimitedError);
    kept.push(run('critical'), run('critical'));
    await expect(run('critical')).rejects.toBeInstanceOf(ConcurrencyLimitedError);
    expect(events.filter((e) => e.type === 'concurrencyRejected').map((e) => [e.type === 'concurrencyRejected' && e.criticality, e.type === 'concurrencyRejected' && e.inFlight])).toEqual([
      ['sheddable', 5],
      ['default', 8],
      ['critical', 10],
    ]);
    expect(() => limiter.allow({ meta: { criticality: 'sheddable' } })).toThrow(ConcurrencyLimitedError);
    gate.resolve();
    await Promise.all(kept);
    limiter.allow({ meta: { criticality: 'sheddable' } }).success();
    expect(limiter.inFlight).toBe(0);
  });

  it('guarantees each partition its share even at the limit, and lets it borrow idle slots', async () => {
    const limiter = fixed(10, { partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' });
    const events = eventsOf(limiter);
    const gate = deferred();
    const run = (t: string) => limiter.execute(() => gate.promise, { meta: { traffic: t } });
    const kept = Array.from({ length: 10 }, () => run('batch')); // idle: batch borrows the whole limit
    await expect(run('batch')).rejects.toBeInstanceOf(ConcurrencyLimitedError);
    await expect(run('other')).rejects.toBeInstanceOf(ConcurrencyLimitedError); // no partition: borrowing only
    kept.push(...Array.from({ length: 9 }, () => run('live'))); // live's 9 are guaranteed, limit or not
    await expect(run('live')).rejects.toBeInstanceOf(ConcurrencyLimitedError);
    expect(limiter.inFlightIn('live')).toBe(9);
    expect(limiter.inFlightIn('batch')).toBe(10);
    expect(events.filter((e) => e.type === 'concurrencyRejected').map((e) => e.type === 'concurrencyRejected' && e.partition)).toEqual(['batch', undefined, 'live']);
    gate.resolve();
    await Promise.all(kept);
    expect(limiter.inFlightIn('live') + limiter.inFlightIn('batch')).toBe(0);
    // With live idle, batch borrows again.
    const permits = Array.from({ length: 10 }, () => limiter.allow({ meta: { traffic: 'batch' } }));
    expect(limiter.inFlightIn('batch')).toBe(10);
    for (const p of permits) p.release();
    expect(limiter.inFlight).toBe(0);
  });

  it('partitions by criticality unless told otherwise', () => {
    const limiter = fixed(2, { partitions: { critical: 0.5, default: 0.5 } });
    limiter.allow();
    limiter.allow({ meta: { criticality: 'sheddable' } });
    expect(() => limiter.allow({ meta: { criticality: 'sheddable' } })).toThrow(ConcurrencyLimitedError);
    expect(limiter.inFlightIn('default')).toBe(1);
    limiter.allow({ meta: { criticality: 'critical' } });
    expect(limiter.inFlightIn('critical')).toBe(1);
  });

  it('refuses bad reserves and partitions naming the option and the rule', () => {
    const issues = (o: unknown) => issuesOf(() => adaptiveLimiter(o as never));
    expect(issues({ reserve: { sheddable: 1.5 } })).toEqual([{ path: 'reserve.sheddable', message: 'expected a number in [0, 1)' }]);
    expect(issues({ reserve: { default: 0.3, sheddable: 0.1 } })).toEqual([{ path: 'reserve.sheddable', message: 'must be >= default: sheddable calls are shed first' }]);
    expect(issues({ partitions: { live: 0.9, batch: 0.2 } })).toEqual([{ path: 'partitions', message: 'the shares must add up to at most 1' }]);
    expect(issues({ partitions: { live: -1 } })).toEqual([{ path: 'partitions.live', message: 'expected a number in (0, 1]' }]);
    expect(issues({ partitionBy: 3 })).toEqual([{ path: 'partitionBy', message: 'Invalid input: expected string, received number' }]);
  });
});

describe('AdaptiveLimiterPolicy.reconfigure', () => {
  it('keeps the limit and the calls in flight, moving the limit into new bounds and saying so', () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 10, clock });
    const events = eventsOf(limiter);
    const held = Array.from({ length: 6 }, () => limiter.allow());
    limiter.reconfigure({ initialLimit: 5, minLimit: 2, maxLimit: 8 });
    expect(limiter.stats()).toMatchObject({ limit: 8, inFlight: 6 });
    expect([limiter.minLimit, limiter.maxLimit]).toEqual([2, 8]);
    expect(changes(events)).toEqual([
      { type: 'limitChanged', policy: 'adaptiveLimiter', from: 10, to: 8, reason: 'reconfigure', rttMs: undefined, baselineMs: undefined, maxInFlight: 0, samples: 0, drops: 0 },
    ]);
    held.push(limiter.allow(), limiter.allow());
    expect(() => limiter.allow()).toThrow(ConcurrencyLimitedError);
    limiter.reconfigure({ initialLimit: 12, minLimit: 12, maxLimit: 20 });
    expect(limiter.limit).toBe(12);
    expect(moves(events).at(-1)).toEqual([8, 12, 'reconfigure']);
    // A limit already within the new bounds stays where it is, silently.
    limiter.reconfigure({ initialLimit: 12, minLimit: 1, maxLimit: 200 });
    expect(limiter.limit).toBe(12);
    expect(changes(events)).toHaveLength(2);
    for (const p of held) p.release();
    expect(limiter.inFlight).toBe(0);
    // initialLimit is now what reset() returns to.
    limiter.reconfigure({ initialLimit: 7 });
    limiter.reset();
    expect(limiter.limit).toBe(7);
  });

  it("retunes the algorithm in place, keeping the baseline it measured", async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 4, minSamples: 1, windowMs: 1, clock });
    const events = eventsOf(limiter);
    await window(limiter, clock, 10, 1); // app-limited: the baseline (10 ms), no move
    limiter.reconfigure({ initialLimit: 4, minSamples: 1, windowMs: 1, algorithm: { kind: 'gradient', tolerance: 1 } });
    expect(limiter.stats()).toMatchObject({ limit: 4, baselineMs: 10 });
    // 13 ms against the 10 ms kept: within the old tolerance of 1.5 (the limit would grow), over the new one of 1:
    // 4 × (1 − 0.2 × (1 − 10/13)) = 3.8.
    await window(limiter, clock, 13, 4);
    expect(moves(events)).toEqual([[4, 3, 'queueing']]);
  });

  it('changes the kind of algorithm in place: the new one starts from the current limit with nothing measured', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 1, windowMs: 1, clock });
    const events = eventsOf(limiter);
    await window(limiter, clock, 10, 1);
    expect(limiter.stats().baselineMs).toBe(10);
    const held = [limiter.allow(), limiter.allow(), limiter.allow()];
    limiter.reconfigure({ initialLimit: 10, minSamples: 1, windowMs: 1, algorithm: { kind: 'aimd', increase: 2 } });
    expect(limiter.stats()).toMatchObject({ limit: 10, inFlight: 3, baselineMs: undefined });
    for (const p of held) p.release();
    // Five times the old baseline would have lowered a gradient limit; AIMD, without a drop, grows it by 2.
    await window(limiter, clock, 50, 5);
    expect(moves(events)).toEqual([[10, 12, 'increase']]);
  });

  it('applies new window bounds to the window under way', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 4, minSamples: 3, windowMs: 1, clock });
    await window(limiter, clock, 10, 1);
    expect(limiter.stats().baselineMs).toBe(undefined);
    // The call measured before the reload counts: a second one closes the window of 2.
    limiter.reconfigure({ initialLimit: 4, minSamples: 2, windowMs: 1 });
    await window(limiter, clock, 10, 1);
    expect(limiter.stats()).toMatchObject({ baselineMs: 10, rttMs: 10 });
  });

  it('gives the same partitions new shares in place, keeping their calls in flight', () => {
    const limiter = adaptiveLimiter({ algorithm: 'aimd', initialLimit: 4, minLimit: 4, maxLimit: 4, minSamples: 1_000, partitions: { live: 0.25, batch: 0.25 }, partitionBy: 'traffic' });
    const held = Array.from({ length: 4 }, () => limiter.allow({ meta: { traffic: 'batch' } }));
    held.push(limiter.allow({ meta: { traffic: 'live' } })); // live's 1 slot is guaranteed, limit or not
    expect(() => limiter.allow({ meta: { traffic: 'live' } })).toThrow(ConcurrencyLimitedError);
    limiter.reconfigure({ algorithm: 'aimd', initialLimit: 4, minLimit: 4, maxLimit: 4, minSamples: 1_000, partitions: { live: 0.5, batch: 0.25 }, partitionBy: 'traffic' });
    expect([limiter.inFlightIn('live'), limiter.inFlightIn('batch')]).toEqual([1, 4]);
    held.push(limiter.allow({ meta: { traffic: 'live' } })); // now 2 are guaranteed
    expect(() => limiter.allow({ meta: { traffic: 'live' } })).toThrow(ConcurrencyLimitedError);
    for (const p of held) p.release();
    expect(limiter.inFlight).toBe(0);
  });

  it('refuses other partitions, naming them, and changes nothing', () => {
    const o = { initialLimit: 4, partitions: { live: 0.5, batch: 0.5 }, partitionBy: 'traffic' };
    const limiter = adaptiveLimiter(o);
    const why = [{ path: 'partitions', message: 'cannot change in place (it shapes the bookkeeping); build a new adaptive limiter' }];
    expect(issuesOf(() => limiter.reconfigure({ ...o, maxLimit: 10, partitions: { live: 0.5, bulk: 0.5 } }))).toEqual(why);
    expect(issuesOf(() => limiter.reconfigure({ ...o, maxLimit: 10, partitionBy: 'tenant' }))).toEqual(why);
    expect(issuesOf(() => limiter.reconfigure({ ...o, maxLimit: 10, partitions: undefined }))).toEqual(why);
    expect(limiter.maxLimit).toBe(200);
    // Without partitions, partitionBy reads nothing: another one is no change.
    const plain = adaptiveLimiter({ initialLimit: 4 });
    plain.reconfigure({ initialLimit: 4, maxLimit: 10, partitionBy: 'tenant' });
    expect(plain.maxLimit).toBe(10);
    expect(issuesOf(() => plain.reconfigure({ initialLimit: 4, partitions: { live: 1 } }))).toEqual(why);
  });

  it('refuses a bad option naming it and the rule, and changes nothing', async () => {
    const clock = new TestClock(START);
    const limiter = adaptiveLimiter({ initialLimit: 10, minSamples: 1, windowMs: 1, clock });
    await window(limiter, clock, 10, 1);
    expect(issuesOf(() => limiter.reconfigure({ initialLimit: 4, minLimit: 5, maxLimit: 3, algorithm: 'aimd' }))).toEqual([{ path: 'minLimit', message: 'must be <= maxLimit (3)' }]);
    expect(issuesOf(() => limiter.reconfigure({ maxLimit: 10, algorithm: { kind: 'vegas', alpha: 6, beta: 3 } }))).toEqual([{ path: 'algorithm.beta', message: 'beta must exceed alpha' }]);
    expect(limiter.stats()).toMatchObject({ limit: 10, baselineMs: 10 });
    expect([limiter.minLimit, limiter.maxLimit]).toEqual([1, 200]);
  });
});
