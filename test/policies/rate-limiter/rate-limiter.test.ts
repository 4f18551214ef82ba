import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  ConfigError,
  executeWith,
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
  type Operation,
  type Policy,
  type RateAlgorithm,
} from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';
import { deferred, rejection, track } from '../../helpers/track.js';
import { abortedContext, userPolicy } from '../../helpers/user-policy.js';

const T0 = 1_700_000_000_000;

describe('rateLimiter: from the mutation analysis', () => {
  it('refuses with RateLimitedError carrying its name and retryAfterMs; the outcome carries that error', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 2, burst: 1 }), clock, name: 'api' });
    const events = collect(limiter);
    await limiter.execute(() => 1);
    await clock.advance(100);
    const error = await limiter.execute(() => 2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ policy: 'api', retryAfterMs: 400 });
    expect(events).toEqual([
      { type: 'outcome', policy: 'api', result: 'success', durationMs: 0, error: undefined },
      { type: 'limitRejected', policy: 'api', reason: 'rateLimited', retryAfterMs: 400 },
      { type: 'outcome', policy: 'api', result: 'rejected', durationMs: 0, error },
    ]);
  });

  it('reports what an admitted operation threw as failure, timeout or rejected, timed from admission', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 10 }), clock });
    const events = collect(limiter);
    const failure = new Error('boom');
    const timeout = new TimeoutError('inner');
    const shed = new BrokenCircuitError('cb');
    for (const e of [failure, timeout, shed]) {
      const p = limiter.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(e), 7)));
      const t = track(p, clock);
      await clock.advance(7);
      expect(await rejection(t)).toBe(e);
    }
    expect(events).toEqual([
      { type: 'outcome', policy: 'rateLimiter', result: 'failure', durationMs: 7, error: failure },
      { type: 'outcome', policy: 'rateLimiter', result: 'timeout', durationMs: 7, error: timeout },
      { type: 'outcome', policy: 'rateLimiter', result: 'rejected', durationMs: 7, error: shed },
    ]);
  });

  it('a leaky-bucket wait counts in the duration of the outcome', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 2 }), clock });
    const events = collect(limiter);
    const calls = [limiter.execute(() => 'a'), limiter.execute(() => 'b'), limiter.execute(() => 'c')];
    await clock.advance(200);
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b', 'c']);
    expect(events.map((e) => e.type === 'outcome' && e.durationMs)).toEqual([0, 100, 200]);
  });

  it('an algorithm that throws, rejects, answers later or never answers: error, refusal, admission, cancellation', async () => {
    const clock = new TestClock(T0);
    const thrown = new Error('store down');
    let next: (ctx: ExecutionContext) => number | Promise<number> = () => 0;
    const algorithm: RateAlgorithm = { kind: 'custom', acquire: (ctx) => next(ctx) };
    const limiter = rateLimiter({ algorithm, clock });
    const events = collect(limiter);

    next = () => {
      throw thrown;
    };
    await expect(limiter.execute(() => 1)).rejects.toBe(thrown);
    expect(events.at(-1)).toEqual({ type: 'outcome', policy: 'rateLimiter', result: 'failure', durationMs: 0, error: thrown });

    next = () => Promise.reject(thrown);
    await expect(limiter.execute(() => 1)).rejects.toBe(thrown);

    next = () => new Promise((r) => clock.setTimeout(() => r(250), 5));
    const refused = track(limiter.execute(() => 1), clock);
    await clock.advance(5);
    expect(await rejection(refused)).toMatchObject({ retryAfterMs: 250 });
    expect(events.at(-2)).toEqual({ type: 'limitRejected', policy: 'rateLimiter', reason: 'rateLimited', retryAfterMs: 250 });

    next = () => new Promise((r) => clock.setTimeout(() => r(0), 5));
    const admitted = track(limiter.execute(() => 'in'), clock);
    await clock.advance(5);
    expect(await admitted.settled).toMatchObject({ ok: true, value: 'in' });
    expect(events.at(-1)).toEqual({ type: 'outcome', policy: 'rateLimiter', result: 'success', durationMs: 5, error: undefined });

    next = () => new Promise<number>(() => {});
    const ac = new AbortController();
    const cancelled = track(limiter.execute(() => 1, { signal: ac.signal }), clock);
    await clock.advance(3);
    const reason = new Error('caller');
    ac.abort(reason);
    expect(await rejection(cancelled)).toBe(reason);
    expect(events.at(-1)).toEqual({ type: 'outcome', policy: 'rateLimiter', result: 'cancelled', durationMs: 3, error: reason });

    const timed = track(limiter.execute(() => 1, { timeout: 4 }), clock);
    await clock.advance(4);
    expect(await rejection(timed)).toBeInstanceOf(TimeoutError);
    expect(events.at(-1)).toMatchObject({ type: 'outcome', result: 'timeout', durationMs: 4 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('an inner policy waiting on a never-answering algorithm is cancelled through its scope', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: { kind: 'never', acquire: () => new Promise<number>(() => {}) }, clock });
    // the limiter inside a pipeline: only its own Guard settles the wait
    const outer = deferred<unknown>();
    const watcher = userPolicy('watcher', (op, ctx, next) => {
      const p = runNext(op, ctx, next);
      p.then(outer.resolve, outer.resolve);
      return p;
    });
    const ac = new AbortController();
    const reason = new Error('stop');
    const p = pipe(limiter, watcher).execute(() => 1, { signal: ac.signal }).catch(() => undefined);
    ac.abort(reason);
    expect(await outer.promise).toBe(reason);
    await p;
  });

  it('a call whose cooperative deadline has already passed is still admitted and its answer stands', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 1, burst: 1 }), clock });
    // a user policy that reaches the limiter only after the cooperative deadline
    const late = userPolicy('late', (op, ctx, next) => new Promise<void>((r) => clock.setTimeout(() => r(), 20)).then(() => runNext(op, ctx, next)));
    const p = track(pipe(limiter, late, timeout({ ms: 10, mode: 'cooperative', clock })).execute(() => 'ran'), clock);
    await clock.runAll();
    expect(await p.settled).toMatchObject({ ok: true, value: 'ran' });
  });

  it('an already-aborted call takes no token', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 1, burst: 1 }), clock });
    const reason = new Error('gone');
    await expect(limiter[RUN](() => 'no', abortedContext(clock, reason), undefined)).rejects.toBe(reason);
    await expect(limiter.execute(() => 'yes')).resolves.toBe('yes');
  });

  it('builds each algorithm from data with every field', () => {
    const tb = rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 4, burst: 9 } }).algorithm as TokenBucket;
    expect(tb).toBeInstanceOf(TokenBucket);
    expect([tb.rate, tb.burst]).toEqual([4, 9]);
    const lb = rateLimiter({ algorithm: { kind: 'leakyBucket', rate: 3, capacity: 7 } }).algorithm as LeakyBucket;
    expect(lb).toBeInstanceOf(LeakyBucket);
    expect([lb.rate, lb.capacity]).toEqual([3, 7]);
    const sw = rateLimiter({ algorithm: { kind: 'slidingWindow', limit: 6, windowMs: 500 } }).algorithm as SlidingWindow;
    expect(sw).toBeInstanceOf(SlidingWindow);
    expect([sw.limit, sw.windowMs]).toEqual([6, 500]);
    expect(rateLimiter({ algorithm: sw }).name).toBe('rateLimiter');
  });

  it('takes any object with a string kind and an acquire function as an algorithm, nothing else', () => {
    const ok: RateAlgorithm = { kind: 'custom', acquire: () => 0 };
    expect(rateLimiter({ algorithm: ok }).algorithm).toBe(ok);
    for (const bad of [{ kind: 5, acquire: () => 0 }, { kind: 'custom', acquire: 1 }, { kind: 'custom' }, null]) {
      expect(() => rateLimiter({ algorithm: bad } as never)).toThrow(ConfigError);
    }
  });
});
