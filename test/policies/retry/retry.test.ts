import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  ConfigError,
  constant,
  exponential,
  linear,
  isRateLimitedError,
  pipe,
  policy,
  rateLimiter,
  retry,
  TimeoutError,
  tokenBucket,
  type Backoff,
  type GiveUpEvent,
  type PolicyEvent,
  type RetryBudget,
  type RetryEvent,
} from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { rejection, track } from '../../helpers/track.js';

const START = 1_700_000_000_000;

function failing(times: number, error: unknown = new Error('fail')) {
  let calls = 0;
  const op = () => {
    calls++;
    if (calls <= times) throw error;
    return calls;
  };
  return { op, calls: () => calls };
}

describe('retry', () => {
  it('makes exactly maxAttempts calls, then rethrows the last error unchanged', async () => {
    const clock = new TestClock(START);
    const errors = [new Error('1'), new Error('2'), new Error('3')];
    let calls = 0;
    const p = track(
      retry({ maxAttempts: 3, backoff: constant(10), clock }).execute(() => {
        throw errors[calls++];
      }),
      clock,
    );
    await clock.advance(100);
    expect(await rejection(p)).toBe(errors[2]);
    expect(calls).toBe(3);
  });

  it('passes the attempt number in ctx.attempt', async () => {
    const clock = new TestClock(START);
    const attempts: number[] = [];
    const p = retry({ maxAttempts: 4, backoff: constant(1), clock }).execute((ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt < 4) throw new Error('again');
      return 'ok';
    });
    await clock.advance(10);
    await expect(p).resolves.toBe('ok');
    expect(attempts).toEqual([1, 2, 3, 4]);
  });

  it('handles operations that throw strings, undefined, synchronously, and return plain values or thenables', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 2, backoff: constant(0), clock });
    await expect(r.execute(() => Promise.reject('str'))).rejects.toBe('str');
    await expect(r.execute(() => Promise.reject(undefined))).rejects.toBeUndefined();
    const sync = failing(1, 'sync');
    await expect(r.execute(sync.op)).resolves.toBe(2);
    await expect(r.execute(() => 5)).resolves.toBe(5);
    const thenable = { then: (ok: (v: string) => void) => ok('thenable') };
    await expect(r.execute(() => thenable as PromiseLike<string>)).resolves.toBe('thenable');
    const twice = { then: (ok: (v: number) => void, fail: (e: unknown) => void) => (ok(1), ok(2), fail(new Error('x'))) };
    await expect(r.execute(() => twice as PromiseLike<number>)).resolves.toBe(1);
  });

  it('caller abort during a backoff rejects at once with the reason and makes no further attempt', async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const f = failing(10);
    const p = track(retry({ maxAttempts: 5, backoff: constant(1_000), clock }).execute(f.op, { signal: ac.signal }), clock);
    await clock.advance(10);
    expect(f.calls()).toBe(1);
    expect(clock.pendingTimers).toBe(1);
    const reason = new Error('user left');
    ac.abort(reason);
    expect(await rejection(p)).toBe(reason);
    expect(p.now!.at).toBe(START + 10);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10_000);
    expect(f.calls()).toBe(1);
  });

  it("a call its caller cancels during a backoff still reports its one outcome: cancelled", async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const r = retry({ maxAttempts: 5, backoff: constant(1_000), clock });
    const events: PolicyEvent[] = [];
    r.events$.subscribe((e) => (e.type === 'outcome' || e.type === 'giveUp') && events.push(e));
    const p = track(r.execute(failing(10).op, { signal: ac.signal }), clock);
    await clock.advance(1_010);
    const reason = new Error('user left');
    ac.abort(reason);
    expect(await rejection(p)).toBe(reason);
    expect(events).toMatchObject([
      { type: 'giveUp', attempts: 2, reason: 'cancelled', error: reason },
      { type: 'outcome', result: 'cancelled', durationMs: 1_010, error: reason },
    ]);
  });

  it('gives up early, with the last error, rather than sleep past the deadline', async () => {
    const clock = new TestClock(START);
    const f = failing(10);
    const events: PolicyEvent[] = [];
    const r = retry({ maxAttempts: 10, backoff: constant(40), clock });
    r.events$.subscribe((e) => events.push(e));
    const p = track(r.execute(f.op, { timeout: 100 }), clock);
    await clock.advance(100);
    const err = await rejection(p);
    expect(err).toEqual(new Error('fail'));
    // attempts at 0, 40, 80; a sleep from 80 would end at 120 > 100
    expect(f.calls()).toBe(3);
    expect(p.now!.at).toBe(START + 80);
    expect((events.find((e) => e.type === 'giveUp') as GiveUpEvent).reason).toBe('deadline');
  });

  it('never retries breakwater shedding rejections or errors handle refuses', async () => {
    const r = retry({ maxAttempts: 5, backoff: constant(0), handle: (e) => !(e instanceof TypeError) });
    const shed = failing(10, new BrokenCircuitError('b'));
    await expect(r.execute(shed.op)).rejects.toBeInstanceOf(BrokenCircuitError);
    expect(shed.calls()).toBe(1);
    const typeErr = failing(10, new TypeError('bad'));
    await expect(r.execute(typeErr.op)).rejects.toBeInstanceOf(TypeError);
    expect(typeErr.calls()).toBe(1);
    const throwingHandle = retry({
      maxAttempts: 3,
      backoff: constant(0),
      handle: () => {
        throw new Error('buggy handle');
      },
    });
    const f = failing(2);
    await expect(throwingHandle.execute(f.op)).resolves.toBe(3);
  });

  it('retries results that handleResult calls failures and returns the last one', async () => {
    const clock = new TestClock(START);
    let n = 0;
    const r = retry({ maxAttempts: 3, backoff: constant(1), handleResult: (res) => (res as { status: number }).status >= 500, clock });
    const p = r.execute(() => ({ status: 500 + n++ }));
    await clock.advance(10);
    await expect(p).resolves.toEqual({ status: 502 });
    expect(n).toBe(3);
  });

  it('honours retryAfterMs on the error over the computed backoff', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const p = track(
      retry({ maxAttempts: 2, backoff: constant(10), clock }).execute(() => {
        if (++calls === 1) throw Object.assign(new Error('429'), { retryAfterMs: 2_000 });
        return calls;
      }),
      clock,
    );
    await clock.advance(1_999);
    expect(calls).toBe(1);
    await clock.advance(1);
    expect((await p.settled).ok).toBe(true);
    expect(calls).toBe(2);
  });

  it('caps computed delays at maxDelayMs', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 3, backoff: linear(1_000, 1_000), maxDelayMs: 1_500, clock });
    const delays: number[] = [];
    r.events$.subscribe((e) => e.type === 'retry' && delays.push(e.delayMs));
    const f = failing(2);
    const p = track(r.execute(f.op), clock);
    await clock.advance(2_500);
    expect(p.now).toMatchObject({ ok: true, value: 3, at: START + 2_500 });
    expect(delays).toEqual([1_000, 1_500]);
  });

  it('gives up at once with the error when its retryAfterMs exceeds the default cap, the backoff max', async () => {
    const clock = new TestClock(START);
    const events: PolicyEvent[] = [];
    const r = retry({ maxAttempts: 3, backoff: exponential({ max: 10_000 }), clock });
    r.events$.subscribe((e) => events.push(e));
    const dayLong = Object.assign(new Error('503'), { retryAfterMs: 86_400_000 });
    const f = failing(1, dayLong);
    const p = track(r.execute(f.op), clock);
    await clock.advance(0);
    expect(p.now).toEqual({ ok: false, error: dayLong, at: START });
    expect(f.calls()).toBe(1);
    expect(clock.pendingTimers).toBe(0);
    expect(events.find((e) => e.type === 'giveUp')).toMatchObject({ reason: 'maxDelay', attempts: 1, error: dayLong });
    expect(events.some((e) => e.type === 'retry')).toBe(false);
  });

  it('honours a retryAfterMs up to maxDelayMs and gives up on one beyond it, or an infinite one', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 2, backoff: constant(10), maxDelayMs: 3_000, clock });
    const hinted = (ms: number) => failing(1, Object.assign(new Error('429'), { retryAfterMs: ms }));
    const atCap = hinted(3_000);
    const p = track(r.execute(atCap.op), clock);
    await clock.advance(3_000);
    expect(p.now).toMatchObject({ ok: true, value: 2, at: START + 3_000 });
    for (const ms of [3_001, Infinity]) {
      const over = hinted(ms);
      await expect(r.execute(over.op)).rejects.toMatchObject({ retryAfterMs: ms });
      expect(over.calls()).toBe(1);
    }
  });

  it('gives up at once when a retryAfterMs would end past the deadline', async () => {
    const clock = new TestClock(START);
    const events: PolicyEvent[] = [];
    const r = retry({ maxAttempts: 3, maxDelayMs: 60_000, clock });
    r.events$.subscribe((e) => events.push(e));
    const hint = Object.assign(new Error('429'), { retryAfterMs: 5_000 });
    const f = failing(1, hint);
    const p = track(r.execute(f.op, { timeout: 4_000 }), clock);
    await clock.advance(0);
    expect(p.now).toEqual({ ok: false, error: hint, at: START });
    expect(f.calls()).toBe(1);
    expect((events.find((e) => e.type === 'giveUp') as GiveUpEvent).reason).toBe('deadline');
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, '100'])('a custom backoff returning %s rejects the call with a ConfigError naming the backoff and the value', async (value) => {
    const clock = new TestClock(START);
    const events: PolicyEvent[] = [];
    const r = retry({ maxAttempts: 3, backoff: () => value as number, clock });
    r.events$.subscribe((e) => events.push(e));
    const f = failing(5);
    let p: Promise<unknown> | undefined;
    expect(() => (p = r.execute(f.op))).not.toThrow();
    const error = await p!.then(
      () => expect.unreachable(),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const issue = (error as ConfigError).issues[0]!;
    expect(issue.path).toBe('backoff');
    expect(issue.message).toContain(typeof value === 'number' ? `returned ${String(value)} ` : 'returned a string');
    expect(f.calls()).toBe(1);
    expect(clock.pendingTimers).toBe(0);
    expect(events.find((e) => e.type === 'giveUp')).toMatchObject({ reason: 'invalidBackoff', error });
  });

  it("takes a custom Backoff's max as the default cap; without a usable one the cap is the longest timer", async () => {
    const clock = new TestClock(START);
    const hinted = (ms: number) => failing(1, Object.assign(new Error('503'), { retryAfterMs: ms }));
    const capped = retry({ maxAttempts: 2, backoff: { delay: () => 10, max: 500 }, clock });
    const over = hinted(501);
    await expect(capped.execute(over.op)).rejects.toMatchObject({ retryAfterMs: 501 });
    expect(over.calls()).toBe(1);
    for (const max of [-1, Number.NaN, undefined]) {
      const r = retry({ maxAttempts: 2, backoff: { delay: () => 10, max } as Backoff, clock });
      const long = hinted(3_600_000);
      const p = track(r.execute(long.op), clock);
      await clock.advance(3_600_000);
      expect(p.now).toMatchObject({ ok: true, value: 2 });
      // a timer longer than 2^31 - 1 ms would fire at once
      for (const ms of [2 ** 31, Infinity]) {
        const never = hinted(ms);
        await expect(r.execute(never.op)).rejects.toMatchObject({ retryAfterMs: ms });
        expect(never.calls()).toBe(1);
      }
    }
  });

  it('cuts a computed delay beyond the longest timer to it, so the retry waits rather than firing at once', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 2, backoff: () => 1e12, maxDelayMs: 1e13, clock });
    const delays: number[] = [];
    r.events$.subscribe((e) => e.type === 'retry' && delays.push(e.delayMs));
    const f = failing(1);
    const p = track(r.execute(f.op), clock);
    await clock.advance(2 ** 31 - 2);
    expect(f.calls()).toBe(1);
    await clock.advance(1);
    expect(p.now).toMatchObject({ ok: true, value: 2 });
    expect(delays).toEqual([2 ** 31 - 1]);
  });

  it('ignores a retryAfterMs that is not a number >= 0 and backs off instead', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 2, backoff: constant(25), clock });
    for (const retryAfterMs of [-5, Number.NaN, '2000', null]) {
      const f = failing(1, Object.assign(new Error('odd hint'), { retryAfterMs }));
      const p = track(r.execute(f.op), clock);
      await clock.advance(25);
      expect(p.now).toMatchObject({ ok: true, value: 2 });
    }
  });

  it('takes maxDelayMs as a finite number of milliseconds >= 0, refusing anything else at construction', () => {
    expect(() => retry({ maxDelayMs: 0 })).not.toThrow();
    expect(() => retry({ maxDelayMs: 30_000 })).not.toThrow();
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '1000']) {
      try {
        retry({ maxDelayMs: bad as number });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).issues).toEqual([{ path: 'maxDelayMs', message: expect.stringMatching(/^expected a (finite number of milliseconds|number >= 0)$/) }]);
      }
    }
  });

  it('a reconfigured backoff brings its own max as the default cap', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 2, backoff: constant(10), clock });
    const hinted = () => failing(1, Object.assign(new Error('429'), { retryAfterMs: 2_000 }));
    r.reconfigure({ backoff: exponential({ max: 1_000 }) });
    const over = hinted();
    await expect(r.execute(over.op)).rejects.toMatchObject({ retryAfterMs: 2_000 });
    expect(over.calls()).toBe(1);
    r.reconfigure({ backoff: exponential({ max: 1_000 }), maxDelayMs: 2_000 });
    const within = hinted();
    const p = track(r.execute(within.op), clock);
    await clock.advance(2_000);
    expect(p.now).toMatchObject({ ok: true, value: 2, at: START + 2_000 });
  });

  it("never retries an inner rateLimiter's RateLimitedError, but waits out a dependency's retryAfterMs", async () => {
    const clock = new TestClock(START);
    const events: PolicyEvent[] = [];
    const r = retry({ maxAttempts: 3, backoff: constant(10), clock });
    r.events$.subscribe((e) => events.push(e));
    const limited = pipe(rateLimiter({ algorithm: tokenBucket({ rate: 5, burst: 1 }), clock }), r);
    await expect(limited.execute(() => 'spends the only token')).resolves.toBe('spends the only token');
    let calls = 0;
    const refused = track(limited.execute(() => ++calls), clock);
    await clock.advance(0);
    const error = await rejection(refused);
    expect(isRateLimitedError(error) && error.retryAfterMs).toBe(200);
    expect(refused.now!.at).toBe(START);
    expect([calls, clock.pendingTimers]).toEqual([0, 0]);
    expect(events.find((e) => e.type === 'giveUp')).toMatchObject({ reason: 'notHandled', attempts: 1 });

    const busy = failing(1, Object.assign(new Error('429 from the dependency'), { retryAfterMs: 200 }));
    const retried = track(r.execute(busy.op), clock);
    await clock.advance(199);
    expect(busy.calls()).toBe(1);
    await clock.advance(1);
    expect(retried.now).toMatchObject({ ok: true, value: 2, at: START + 200 });
  });

  it('emits retry before sleeping, so a listener can drive the clock', async () => {
    const clock = new TestClock(START);
    const r = retry({ maxAttempts: 3, backoff: constant(500), clock });
    const seen: RetryEvent[] = [];
    r.events$.subscribe((e) => {
      if (e.type === 'retry') {
        seen.push(e);
        void clock.advance(e.delayMs);
      }
    });
    const f = failing(2);
    await expect(r.execute(f.op)).resolves.toBe(3);
    expect(seen.map((e) => [e.attempt, e.delayMs])).toEqual([
      [2, 500],
      [3, 500],
    ]);
  });

  it('consults the budget before each retry; a refused retry makes no call', async () => {
    let allowed = 1;
    const calls: string[] = [];
    const budget: RetryBudget = {
      onCall: () => calls.push('call'),
      tryRetry: () => (allowed-- > 0 ? (calls.push('retry'), true) : (calls.push('refused'), false)),
    };
    const f = failing(10);
    await expect(retry({ maxAttempts: 5, backoff: constant(0), budget }).execute(f.op)).rejects.toThrow('fail');
    expect(calls).toEqual(['call', 'retry', 'refused']);
    expect(f.calls()).toBe(2);
  });

  it('per-attempt timeouts inside it are retried; the outer deadline is not', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const p = track(
      policy({ clock })
        .timeout(50)
        .retry({ maxAttempts: 3, backoff: constant(0) })
        .execute(() => {
          calls++;
          return new Promise(() => {});
        }),
      clock,
    );
    await clock.advance(150);
    expect(await rejection(p)).toBeInstanceOf(TimeoutError);
    expect(calls).toBe(3);
    expect(p.now!.at).toBe(START + 150);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a seeded random source makes delays reproducible', async () => {
    const delays = async () => {
      const clock = new TestClock(START);
      const out: number[] = [];
      const r = retry({ maxAttempts: 4, clock, random: seededRandom(7) });
      r.events$.subscribe((e) => e.type === 'retry' && out.push(e.delayMs));
      const p = track(r.execute(failing(10).op), clock);
      await clock.advance(10_000);
      await p.settled;
      return out;
    };
    const a = await delays();
    expect(a).toHaveLength(3);
    expect(await delays()).toEqual(a);
  });

  it.each([
    [{ maxAttempts: 0 }, 'maxAttempts'],
    [{ maxAttempts: 1.5 }, 'maxAttempts'],
    [{ maxAttempts: Number.NaN }, 'maxAttempts'],
    [{ maxAttempts: Number.POSITIVE_INFINITY }, 'maxAttempts'],
    [{ maxAttempts: '3' }, 'maxAttempts'],
    [{ backoff: 5 }, 'backoff'],
    [{ handle: true }, 'handle'],
    [{ jitter: 'full' }, 'jitter'],
  ])('rejects %j with a ConfigError naming %s', (options, path) => {
    try {
      retry(options as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toContain(path);
    }
  });
});
