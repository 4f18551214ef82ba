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
import { seededRandom, TestClock } from '../../../lib/testing.js';
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

type Crit = 'critical' | 'default' | 'sheddable';

describe('rateLimiter by criticality', () => {
  /** Offers `n` calls 50 ms apart (20 a second) of random criticality; which were refused, in order, and how many of each came. */
  async function overload(algorithm: RateAlgorithm, reserve: object | undefined, n: number) {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm, clock, ...(reserve === undefined ? {} : { reserve }) });
    const random = seededRandom(21);
    const refused: Crit[] = [];
    const offered = { critical: 0, default: 0, sheddable: 0 };
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < n; i++) {
      const r = random();
      const c: Crit = r < 0.2 ? 'critical' : r < 0.6 ? 'default' : 'sheddable';
      offered[c]++;
      calls.push(
        limiter.execute(() => c, { meta: { criticality: c } }).catch((e: unknown) => {
          if (e instanceof RateLimitedError) refused.push(c);
        }),
      );
      await clock.advance(50);
    }
    await clock.runAll();
    await Promise.all(calls);
    const share = (c: Crit) => refused.filter((x) => x === c).length / offered[c];
    return { refused, share };
  }

  const algorithms: [string, () => RateAlgorithm][] = [
    ['tokenBucket', () => tokenBucket({ rate: 10, burst: 10 })],
    ['slidingWindow', () => new SlidingWindow({ limit: 10, windowMs: 1_000, buckets: 10 })],
    ['leakyBucket', () => leakyBucket({ rate: 10, capacity: 10 })],
  ];

  for (const [kind, make] of algorithms) {
    it(`${kind}: under overload refuses sheddable calls before any critical one (default reserve)`, async () => {
      const { refused } = await overload(make(), undefined, 200);
      expect(refused).toContain('sheddable');
      const firstCritical = refused.indexOf('critical');
      expect(firstCritical === -1 || firstCritical > refused.indexOf('sheddable')).toBe(true);
    });

    it(`${kind}: with a reserve per criticality refuses sheddable most, then default, critical least`, async () => {
      const { refused, share } = await overload(make(), { default: 0.2, sheddable: 0.5 }, 200);
      expect(refused[0]).toBe('sheddable');
      expect(share('sheddable')).toBeGreaterThan(share('default'));
      expect(share('default')).toBeGreaterThan(share('critical'));
    });
  }

  it('keeps reserve × burst tokens from the calls it applies to, and names the criticality in the refusal event', async () => {
    const clock = new TestClock(T0);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 1, burst: 10 }), reserve: { default: 0.2, sheddable: 0.5 }, clock });
    const events = collect(limiter);
    const run = (c: Crit) => limiter.execute(() => c, { meta: { criticality: c } });
    for (let i = 0; i < 5; i++) await run('sheddable'); // 10 tokens down to 5
    const shed = await rejection(track(run('sheddable'), clock));
    expect(shed).toBeInstanceOf(RateLimitedError);
    // 5 tokens left, all of the reserve: a sliver more (1 ms of refill) lets the next one through.
    expect((shed as RateLimitedError).retryAfterMs).toBe(1);
    for (let i = 0; i < 3; i++) await run('default'); // down to 2
    await expect(run('default')).rejects.toBeInstanceOf(RateLimitedError);
    await run('critical');
    await run('critical');
    await expect(run('critical')).rejects.toBeInstanceOf(RateLimitedError);
    await clock.advance(1);
    await expect(run('sheddable')).rejects.toBeInstanceOf(RateLimitedError); // 0.001 tokens: far under the reserve
    expect(events.filter((e) => e.type === 'limitRejected')).toEqual([
      { type: 'limitRejected', policy: 'rateLimiter', reason: 'rateLimited', retryAfterMs: 1, criticality: 'sheddable' },
      // 2 tokens left, 0.2 × 10 kept for critical calls
      expect.objectContaining({ criticality: 'default', retryAfterMs: 1 }),
      expect.objectContaining({ criticality: 'critical', retryAfterMs: 1_000 }),
      // 5 − 0.001 tokens short of the reserve: 4 999 ms, and a sliver
      expect.objectContaining({ criticality: 'sheddable', retryAfterMs: 5_000 }),
    ]);
  });

  it('gives an algorithm the reserve of the call as a second argument, and only one argument when there is none', async () => {
    const seen: unknown[][] = [];
    const algorithm: RateAlgorithm = { kind: 'spy', acquire: (...args: unknown[]) => (seen.push(args.slice(1)), 0) } as RateAlgorithm;
    const limiter = rateLimiter({ algorithm, reserve: { default: 0.25, sheddable: 0.5 } });
    await limiter.execute(() => 1);
    await limiter.execute(() => 1, { meta: { criticality: 'sheddable' } });
    await limiter.execute(() => 1, { meta: { criticality: 'critical' } });
    await limiter.execute(() => 1, { meta: { criticality: 'urgent' } }); // not a criticality: default
    expect(seen).toEqual([[0.25], [0.5], [], [0.25]]);
  });

  it('refuses a bad reserve naming the option and the rule', () => {
    const algorithm = tokenBucket({ rate: 1 });
    let error: unknown;
    try {
      rateLimiter({ algorithm, reserve: { sheddable: 0.1, default: 0.3 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([{ path: 'reserve.sheddable', message: 'must be >= default: sheddable calls are shed first' }]);
    expect(() => rateLimiter({ algorithm, reserve: { default: -1 } })).toThrow('reserve.default: expected a number in [0, 1)');
  });
});
