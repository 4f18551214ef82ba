/**
 * Tests written from a manual mutation analysis of the limiting policies
 * (bulkhead, rate limiter and its algorithms, fallback, permits): each pins
 * down a behaviour the other tests left open (event contents, boundaries,
 * error fields, cleanup).
 */
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  bulkhead,
  BulkheadRejectedError,
  ConfigError,
  executeWith,
  fallback,
  fallbackChain,
  leakyBucket,
  pipe,
  policy,
  rateLimiter,
  RateLimitedError,
  RUN,
  runNext,
  systemClock,
  timeout,
  TimeoutError,
  tokenBucket,
  TokenBucket,
  LeakyBucket,
  SlidingWindow,
  type Chain,
  type ExecuteOptions,
  type ExecutionContext,
  type LimiterHost,
  type Operation,
  type Policy,
  type RateAlgorithm,
} from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';
import { deferred, rejection, track } from '../../helpers/track.js';
import { abortedContext, userPolicy } from '../../helpers/user-policy.js';

const T0 = 1_700_000_000_000;

const flush = () => new Promise((r) => setImmediate(r));

describe('bulkhead: from the mutation analysis', () => {
  it('reports rejected with its reason and an outcome carrying the error and a zero duration', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, clock, name: 'db' });
    const events = collect(b);
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    await clock.advance(30);
    const error = await b.execute(() => 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BulkheadRejectedError);
    expect((error as BulkheadRejectedError).policy).toBe('db');
    expect(events).toEqual([
      { type: 'limitRejected', policy: 'db', reason: 'bulkheadFull' },
      { type: 'outcome', policy: 'db', result: 'rejected', durationMs: 0, error },
    ]);
    gate.resolve();
    await first;
  });

  it('queued events count the waiters; a queued call is timed from its arrival, queue wait included', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 3, clock });
    const events = collect(b);
    const first = b.execute(() => new Promise<string>((r) => clock.setTimeout(() => r('a'), 40)));
    const second = b.execute(() => new Promise<string>((r) => clock.setTimeout(() => r('b'), 15)));
    const third = b.execute(() => 'c');
    expect(events.filter((e) => e.type === 'queued')).toEqual([
      { type: 'queued', policy: 'bulkhead', queued: 1 },
      { type: 'queued', policy: 'bulkhead', queued: 2 },
    ]);
    await clock.runAll();
    await expect(Promise.all([first, second, third])).resolves.toEqual(['a', 'b', 'c']);
    // first runs 0..40, second waits then runs 40..55, third waits until 55 and settles at once
    expect(events.filter((e) => e.type === 'outcome')).toEqual([
      { type: 'outcome', policy: 'bulkhead', result: 'success', durationMs: 40, error: undefined },
      { type: 'outcome', policy: 'bulkhead', result: 'success', durationMs: 55, error: undefined },
      { type: 'outcome', policy: 'bulkhead', result: 'success', durationMs: 55, error: undefined },
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an operation that fails is reported as failure, timeout or rejected by what it threw', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, clock });
    const events = collect(b);
    const failure = new Error('boom');
    const timeout = new TimeoutError('inner');
    const shed = new BrokenCircuitError('cb');
    for (const e of [failure, timeout, shed]) await expect(b.execute(() => Promise.reject(e))).rejects.toBe(e);
    expect(events).toEqual([
      { type: 'outcome', policy: 'bulkhead', result: 'failure', durationMs: 0, error: failure },
      { type: 'outcome', policy: 'bulkhead', result: 'timeout', durationMs: 0, error: timeout },
      { type: 'outcome', policy: 'bulkhead', result: 'rejected', durationMs: 0, error: shed },
    ]);
    expect(b.executing).toBe(0);
  });

  it('a waiter leaving the queue reports cancelled (caller abort) or timeout (deadline) with its wait, and frees its place', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 2, clock });
    const events = collect(b);
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    const ac = new AbortController();
    let ran = 0;
    const cancelled = track(b.execute(() => ran++, { signal: ac.signal }), clock);
    const timed = track(b.execute(() => ran++, { timeout: 30 }), clock);
    await clock.advance(10);
    const reason = new Error('caller');
    ac.abort(reason);
    expect(await rejection(cancelled)).toBe(reason);
    expect(b.queued).toBe(1);
    await clock.advance(20);
    expect(await rejection(timed)).toBeInstanceOf(TimeoutError);
    expect(b.queued).toBe(0);
    const outcomes = events.filter((e) => e.type === 'outcome');
    expect(outcomes).toEqual([
      { type: 'outcome', policy: 'bulkhead', result: 'cancelled', durationMs: 10, error: reason },
      { type: 'outcome', policy: 'bulkhead', result: 'timeout', durationMs: 30, error: expect.any(TimeoutError) },
    ]);
    gate.resolve();
    await first;
    expect(ran).toBe(0);
    expect(b.executing).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a granted waiter whose caller aborts while it runs is reported once and leaves the queue count alone', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 2, clock });
    const events = collect(b);
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    const ac = new AbortController();
    const op = deferred<string>();
    const second = track(b.execute(() => op.promise, { signal: ac.signal }), clock);
    gate.resolve();
    await first;
    await flush();
    expect(b.executing).toBe(1);
    expect(b.queued).toBe(0);
    const reason = new Error('gone');
    ac.abort(reason);
    expect(await rejection(second)).toBe(reason);
    expect(b.queued).toBe(0);
    // the slot stays held until the operation settles
    expect(b.executing).toBe(1);
    op.resolve('late');
    await flush();
    expect(b.executing).toBe(0);
    // the running call's own outcome (the caller's abort), reported once
    expect(events.filter((e) => e.type === 'outcome')).toEqual([
      { type: 'outcome', policy: 'bulkhead', result: 'success', durationMs: 0, error: undefined },
      { type: 'outcome', policy: 'bulkhead', result: 'cancelled', durationMs: 0, error: reason },
    ]);
    await expect(b.execute(() => 'next')).resolves.toBe('next');
  });

  it('waiters cancelled from the middle and the end of the queue leave the rest in order, and later arrivals join behind', async () => {
    const b = bulkhead({ limit: 1, queue: 4 });
    const gate = deferred();
    const started: string[] = [];
    const run = (name: string, signal?: AbortSignal) =>
      b.execute(
        () => {
          started.push(name);
        },
        { signal },
      );
    const first = b.execute(() => gate.promise);
    const acMid = new AbortController();
    const acEnd = new AbortController();
    const a = run('a');
    const mid = run('mid', acMid.signal).catch(() => 'cancelled');
    const c = run('c');
    const end = run('end', acEnd.signal).catch(() => 'cancelled');
    acMid.abort();
    acEnd.abort();
    await expect(Promise.all([mid, end])).resolves.toEqual(['cancelled', 'cancelled']);
    expect(b.queued).toBe(2);
    const d = run('d');
    expect(b.queued).toBe(3);
    gate.resolve();
    await Promise.all([first, a, c, d]);
    expect(started).toEqual(['a', 'c', 'd']);
    expect(b.queued).toBe(0);
    expect(b.executing).toBe(0);
  });

  it('a full bulkhead given an already-aborted call rejects with its reason: nothing queued, nothing reported', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 1, clock });
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    const events = collect(b);
    const reason = new Error('already gone');
    let ran = false;
    await expect(b[RUN](() => (ran = true), abortedContext(clock, reason), undefined)).rejects.toBe(reason);
    expect(b.queued).toBe(0);
    expect(events).toEqual([]);
    gate.resolve();
    await first;
    await flush();
    expect(ran).toBe(false);
    expect(b.executing).toBe(0);
  });

  it('a full bulkhead queues a call whose cooperative deadline has already passed', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 1, clock });
    const late = userPolicy('late', (op, ctx, next) => new Promise<void>((r) => clock.setTimeout(() => r(), 20)).then(() => runNext(op, ctx, next)));
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    const p = track(pipe(b, late, timeout({ ms: 10, mode: 'cooperative', clock })).execute(() => 'ran'), clock);
    await clock.advance(20);
    await flush();
    expect(b.queued).toBe(1);
    gate.resolve();
    await first;
    expect(await p.settled).toMatchObject({ ok: true, value: 'ran' });
    expect(b.executing).toBe(0);
  });

  it('a cooperative deadline does not take a waiter out of the queue: it runs when a slot frees', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 1, clock });
    const p = policy({ clock }).use(b).timeout({ ms: 20, mode: 'cooperative' });
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    let sawAbort: boolean | undefined;
    const waiting = track(
      p.execute((ctx) => {
        sawAbort = ctx.signal.aborted;
        return 'ran';
      }),
      clock,
    );
    await clock.advance(20);
    expect(b.queued).toBe(1);
    expect(waiting.now).toBeUndefined();
    gate.resolve();
    await first;
    const s = await waiting.settled;
    expect(sawAbort).toBe(true);
    expect(b.queued).toBe(0);
    expect(b.executing).toBe(0);
    // the operation answered after the cooperative deadline: that answer stands
    expect(s).toMatchObject({ ok: true, value: 'ran' });
  });

  it('operations answering null, a function or a plain object release their slot', async () => {
    const b = bulkhead({ limit: 1 });
    await expect(b.execute(() => null)).resolves.toBeNull();
    expect(b.executing).toBe(0);
    const fn = () => 1;
    await expect(b.execute(() => fn)).resolves.toBe(fn);
    expect(b.executing).toBe(0);
    const obj = { then: 1 };
    await expect(b.execute(() => obj)).resolves.toBe(obj);
    expect(b.executing).toBe(0);
  });

  it('an operation answering a callable thenable holds its slot until that settles, past an inner timeout', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, clock });
    const p = policy({ clock }).timeout(10).use(b);
    const gate = deferred<string>();
    const thenable = Object.assign(() => 0, { then: (ok: (v: string) => void, bad: (e: unknown) => void) => gate.promise.then(ok, bad) });
    const first = track(p.execute(() => thenable as unknown as PromiseLike<string>), clock);
    await clock.advance(10);
    expect(await rejection(first)).toBeInstanceOf(TimeoutError);
    // the caller gave up; the operation's thenable has not settled: the slot is still held
    expect(b.executing).toBe(1);
    gate.resolve('done');
    await flush();
    expect(b.executing).toBe(0);
  });

  it('an inner policy calling the operation after the chain settled does not free a second slot', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 0, clock });
    let later: (() => unknown) | undefined;
    // answers at once, and calls the operation again afterwards (like a detached background refresh)
    const detached = userPolicy('detached', (op, ctx, next) => {
      const p = runNext(op, ctx, next);
      later = () => op(ctx);
      return p;
    });
    const p = pipe(detached, b);
    const gate = deferred<string>();
    let calls = 0;
    await expect(p.execute(() => (++calls === 1 ? 'first' : gate.promise))).resolves.toBe('first');
    await flush();
    expect(b.executing).toBe(0);
    // a new call holds the only slot; the late operation call runs outside it
    const held = deferred<string>();
    const second = b.execute(() => held.promise);
    expect(b.executing).toBe(1);
    void later!();
    gate.resolve('late');
    await flush();
    expect(b.executing).toBe(1);
    await expect(b.execute(() => 'x')).rejects.toBeInstanceOf(BulkheadRejectedError);
    held.resolve('held');
    await second;
    await flush();
    expect(b.executing).toBe(0);
  });

  it('an inner policy that throws synchronously rejects the call with that error and frees the slot', async () => {
    const b = bulkhead({ limit: 1 });
    const broken = new Error('sync');
    const thrower = userPolicy('thrower', () => {
      throw broken;
    });
    await expect(pipe(thrower, b).execute(() => 1)).rejects.toBe(broken);
    await flush();
    expect(b.executing).toBe(0);
    await expect(b.execute(() => 2)).resolves.toBe(2);
  });

  it('queue defaults to 0 and name to "bulkhead"', async () => {
    const b = bulkhead({ limit: 1 });
    expect(b.queueLimit).toBe(0);
    expect(b.limit).toBe(1);
    expect(b.name).toBe('bulkhead');
  });
});

describe('tokenBucket: from the mutation analysis', () => {
  it('a clock that steps back neither refills nor drains the bucket', () => {
    const b = tokenBucket({ rate: 1, burst: 2 });
    expect(b.take(10_000)).toBe(0);
    expect(b.take(5_000)).toBe(0);
    // empty now; from 10 000 a token takes 1 000 ms
    expect(b.take(5_000)).toBe(1_000);
    expect(b.take(11_000)).toBe(0);
  });

  it('refills in float steps: the wait is rounded without the noise, and a token short only by noise counts as whole', async () => {
    // rate 10: a token every 100 ms; polled every 10 ms, 0.1 + 0.1 + ... leaves float noise
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 10, burst: 1 }), clock });
    await limiter.execute(() => 0);
    const waits: number[] = [];
    for (let t = 10; t < 100; t += 10) {
      await clock.advance(10);
      waits.push(((await limiter.execute(() => 1).catch((e: unknown) => e)) as RateLimitedError).retryAfterMs);
    }
    // t ms after the last admission, 1 - t / 100 of a token is missing: 100 - t ms
    expect(waits).toEqual([90, 80, 70, 60, 50, 40, 30, 20, 10]);
    await clock.advance(10);
    await expect(limiter.execute(() => 'whole')).resolves.toBe('whole');
  });

  it('takes a token at exactly the float tolerance below a whole one', () => {
    const b = tokenBucket({ rate: 1000, burst: 1 });
    expect(b.take(0)).toBe(0);
    // 1 - 1e-9 ms at 1 000 per second refills exactly 1 - 1e-9 of a token: the tolerance, inclusive
    expect(b.take(1 - 1e-9)).toBe(0);
  });

  it('asks for at least 1 ms however little is missing', () => {
    const b = tokenBucket({ rate: 1000, burst: 1 });
    expect(b.take(0)).toBe(0);
    // 0.9999 of a token after 0.9999 ms: 0.0001 ms missing
    expect(b.take(0.9999)).toBe(1);
  });
});

describe('leakyBucket: from the mutation analysis', () => {
  it('defaults capacity to max(1, ceil(rate))', () => {
    expect(leakyBucket({ rate: 2.5 }).capacity).toBe(3);
    expect(leakyBucket({ rate: 0.1 }).capacity).toBe(1);
    expect(leakyBucket({ rate: 4, capacity: 0 }).capacity).toBe(0);
  });

  it('with capacity 0 admits one call per interval and refuses the rest at once', async () => {
    const clock = new TestClock(T0);
    const bucket = leakyBucket({ rate: 10, capacity: 0 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    await expect(limiter.execute(() => 1)).resolves.toBe(1);
    await clock.advance(40);
    await expect(limiter.execute(() => 2)).rejects.toMatchObject({ retryAfterMs: 60 });
    expect(bucket.waiting).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('admits at once, with no timer, a call arriving exactly one interval after the last release', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 2 }), clock });
    await limiter.execute(() => 1);
    await clock.advance(100);
    let started = false;
    const p = limiter.execute(() => (started = true));
    expect(started).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    await p;
  });

  it('refuses at once, with the wait until its turn, a call whose turn comes after its deadline', async () => {
    const clock = new TestClock(T0);
    const bucket = leakyBucket({ rate: 10, capacity: 5 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    await limiter.execute(() => 0);
    const second = limiter.execute(() => 1);
    // its turn is at 200 ms, one before its deadline would be too late
    await expect(limiter.execute(() => 2, { timeout: 199 })).rejects.toMatchObject({ retryAfterMs: 200 });
    expect(bucket.waiting).toBe(1);
    await clock.runAll();
    await expect(second).resolves.toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a user policy cannot hide the enclosing cooperative deadline: a turn after it is refused at once', async () => {
    const clock = new TestClock(T0);
    const bucket = leakyBucket({ rate: 10, capacity: 3 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    // a user policy that hands the limiter a spread context without the deadline
    const noDeadline = userPolicy('noDeadline', (op, ctx, next) => runNext(op, { ...ctx, deadline: undefined } as ExecutionContext, next));
    const p = pipe(limiter, noDeadline, timeout({ ms: 50, mode: 'cooperative', clock }));
    await limiter.execute(() => 0);
    const waiting = track(p.execute(() => 'ran'), clock);
    await clock.advance(0);
    expect(bucket.waiting).toBe(0);
    expect(await rejection(waiting)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 100 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a call arriving at the instant the head is due, before its release, still queues behind it', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 3 }), clock });
    const starts: [string, number][] = [];
    const run = (name: string) => limiter.execute(() => void starts.push([name, clock.now() - T0]));
    await run('a');
    let c: Promise<void> | undefined;
    // due at 100 like the bucket's own timer, and scheduled before it: runs first
    clock.setTimeout(() => (c = run('c')), 100);
    const b = run('b');
    await clock.runAll();
    await Promise.all([b, c]);
    expect(starts).toEqual([
      ['a', 0],
      ['b', 100],
      ['c', 200],
    ]);
  });

  it('a waiter that leaves mid-queue keeps the timer for the others, who leave one interval apart', async () => {
    const clock = new TestClock(T0);
    const bucket = leakyBucket({ rate: 10, capacity: 3 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    const starts: [string, number][] = [];
    const run = (name: string, signal?: AbortSignal) => limiter.execute(() => void starts.push([name, clock.now() - T0]), { signal });
    await run('a');
    const ac = new AbortController();
    const b = run('b');
    const c = run('c', ac.signal).catch(() => 'cancelled');
    const d = run('d');
    ac.abort();
    expect(await c).toBe('cancelled');
    expect(bucket.waiting).toBe(2);
    expect(clock.pendingTimers).toBe(1);
    await clock.runAll();
    await Promise.all([b, d]);
    expect(starts).toEqual([
      ['a', 0],
      ['b', 100],
      ['d', 200],
    ]);
    expect(clock.pendingTimers).toBe(0);
    // released from the queue at 200, d still spaces the next call one interval later
    const e = run('e');
    expect(starts).toHaveLength(3);
    await clock.runAll();
    await e;
    expect(starts.at(-1)).toEqual(['e', 300]);
  });
});

describe('fallback: from the mutation analysis', () => {
  it('names itself fallback or fallbackChain, or as told', async () => {
    expect(fallback(() => 1).name).toBe('fallback');
    expect(fallbackChain(() => 1, () => 2).name).toBe('fallbackChain');
    expect(fallback(() => 1, { name: 'stale' }).name).toBe('stale');
  });

  it('reports success with its duration, and a failure it does not handle as failure', async () => {
    const clock = new TestClock(T0);
    const f = fallback(() => 'fb', { handle: (e) => e instanceof TypeError });
    const events = collect(f);
    const ok = track(
      policy({ clock })
        .use(f)
        .execute(() => new Promise((r) => clock.setTimeout(() => r('ok'), 9))),
      clock,
    );
    await clock.advance(9);
    expect(await ok.settled).toMatchObject({ ok: true, value: 'ok' });
    const other = new RangeError('r');
    await expect(policy({ clock }).use(f).execute(() => Promise.reject(other))).rejects.toBe(other);
    expect(events).toEqual([
      { type: 'outcome', policy: 'fallback', result: 'success', durationMs: 9, error: undefined },
      { type: 'outcome', policy: 'fallback', result: 'failure', durationMs: 0, error: other },
    ]);
  });

  it('with handleResult: a good result is a success, a bad one is answered and reported with the result as the failure', async () => {
    const clock = new TestClock(T0);
    const seen: unknown[] = [];
    const f = fallback(
      (r) => {
        seen.push(r);
        return { status: 200, cached: true };
      },
      { handleResult: (r) => (r as { status: number }).status >= 500 },
    );
    const events = collect(f);
    const good = { status: 200 };
    const bad = { status: 503 };
    await expect(policy({ clock }).use(f).execute(() => good)).resolves.toBe(good);
    await expect(policy({ clock }).use(f).execute(() => bad)).resolves.toEqual({ status: 200, cached: true });
    expect(seen).toEqual([bad]);
    expect(events).toEqual([
      { type: 'outcome', policy: 'fallback', result: 'success', durationMs: 0, error: undefined },
      { type: 'fallback', policy: 'fallback', handler: 0, error: bad },
      { type: 'outcome', policy: 'fallback', result: 'fallback', durationMs: 0, error: bad },
    ]);
    // with handleResult a thrown value is still answered
    await expect(policy({ clock }).use(f).execute(() => Promise.reject(new Error('x')))).resolves.toEqual({ status: 200, cached: true });
  });

  it("reports the caller's own cancellation as cancelled: no handler, no fallbackFailed", async () => {
    const clock = new TestClock(T0);
    let answered = false;
    const f = fallback(() => (answered = true));
    const events = collect(f);
    const ac = new AbortController();
    const reason = new Error('caller');
    const p = track(policy({ clock }).use(f).execute(() => new Promise(() => {}), { signal: ac.signal }), clock);
    await clock.advance(5);
    ac.abort(reason);
    expect(await rejection(p)).toBe(reason);
    await flush();
    expect(answered).toBe(false);
    expect(events).toEqual([{ type: 'outcome', policy: 'fallback', result: 'cancelled', durationMs: 5, error: reason }]);
  });

  it('answers an inner policy that throws synchronously instead of returning a promise', async () => {
    const broken = new Error('sync');
    const thrower = userPolicy('thrower', () => {
      throw broken;
    });
    const seen: unknown[] = [];
    await expect(pipe(thrower, fallback((e) => (seen.push(e), 'fb'))).execute(() => 1)).resolves.toBe('fb');
    expect(seen).toEqual([broken]);
  });

  it('names the problem in its ConfigErrors', () => {
    const issues = (make: () => unknown) => {
      try {
        make();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues;
      }
      return [];
    };
    expect(issues(() => fallbackChain())).toEqual([{ path: '', message: 'expected at least one handler' }]);
    expect(issues(() => fallback(42 as never))[0]!.message).toMatch(/expected a fallback handler function/);
    expect(issues(() => fallbackChain(() => 1, () => 2, 'x' as never))[0]!.path).toBe('[2]');
    expect(issues(() => fallback(() => 1, { handle: 1 } as never))[0]).toMatchObject({ path: 'handle', message: 'expected a function' });
  });
});
