import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  ConfigError,
  constant,
  policy,
  retry,
  TimeoutError,
  type GiveUpEvent,
  type PolicyEvent,
  type RetryBudget,
  type RetryEvent,
} from '../../../lib/index.js';
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
