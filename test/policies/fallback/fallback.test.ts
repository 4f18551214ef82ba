import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  ConfigError,
  fallback,
  fallbackChain,
  policy,
  TimeoutError,
  type FallbackFailedEvent,
  type OutcomeEvent,
  type PolicyEvent,
} from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { rejection, track } from '../../helpers/track.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

describe('fallback', () => {
  it('answers a failure with the handler, which sees the error', async () => {
    const err = new Error('down');
    await expect(fallback((e) => `answered ${(e as Error).message}`).execute(() => Promise.reject(err))).resolves.toBe('answered down');
    await expect(fallback(async () => 'async').execute(() => Promise.reject(err))).resolves.toBe('async');
    await expect(fallback(() => 0).execute(() => 5)).resolves.toBe(5);
  });

  it('answers breakwater rejections such as an open breaker', async () => {
    await expect(fallback(() => 'stale').execute(() => Promise.reject(new BrokenCircuitError('b')))).resolves.toBe('stale');
  });

  it('handle narrows what is answered; handleResult answers bad results', async () => {
    const f = fallback(() => 'x', { handle: (e) => e instanceof TypeError });
    await expect(f.execute(() => Promise.reject(new RangeError('r')))).rejects.toBeInstanceOf(RangeError);
    await expect(f.execute(() => Promise.reject(new TypeError('t')))).resolves.toBe('x');
    const byResult = fallback(() => ({ status: 200 }), { handleResult: (r) => (r as { status: number }).status >= 500 });
    await expect(byResult.execute(() => ({ status: 503 }))).resolves.toEqual({ status: 200 });
  });

  it("never answers the caller's own cancellation", async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    let answered = false;
    const p = track(
      policy({ clock })
        .timeout(1_000)
        .fallback(() => (answered = true))
        .execute(() => new Promise(() => {}), { signal: ac.signal }),
      clock,
    );
    const reason = new Error('caller');
    ac.abort(reason);
    expect(await rejection(p)).toBe(reason);
    expect(answered).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it("answers an inner timeout and the call's own deadline (its handler sees the aborted signal)", async () => {
    const clock = new TestClock(START);
    const inner = track(
      policy({ clock })
        .timeout(10)
        .fallback(() => 'fb')
        .execute(() => new Promise(() => {})),
      clock,
    );
    let seen: unknown;
    const outer = track(
      policy({ clock })
        .fallback((error, ctx) => ((seen = [error, ctx.signal.aborted]), 'fb'))
        .execute(() => new Promise(() => {}), { timeout: 10 }),
      clock,
    );
    await clock.advance(10);
    expect(await inner.settled).toMatchObject({ ok: true, value: 'fb' });
    expect(await outer.settled).toMatchObject({ ok: true, value: 'fb', at: START + 10 });
    expect(seen).toEqual([expect.any(TimeoutError), true]);
  });

  it("takes a clock: execute's timeout and the events' durations run on it", async () => {
    const clock = new TestClock(START);
    const f = fallback(() => 'fb', { clock });
    const outcomes: PolicyEvent[] = [];
    f.events$.subscribe((e) => e.type === 'outcome' && outcomes.push(e));
    const p = track(
      f.execute(() => new Promise(() => {}), { timeout: 100 }),
      clock,
    );
    await clock.advance(99);
    expect(p.now).toBeUndefined();
    await clock.advance(1);
    // the call's deadline passing is answered, at that moment of the virtual clock
    expect(await p.settled).toMatchObject({ ok: true, value: 'fb', at: START + 100 });
    expect(outcomes.map((e) => (e as OutcomeEvent).durationMs)).toEqual([100]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("gets the builder's clock, like every policy the builder makes", async () => {
    const clock = new TestClock(START);
    const [single, chain] = policy({ clock })
      .fallback(() => 'fb')
      .fallbackChain(() => 'fb')
      .policies;
    const a = track(single!.execute(() => new Promise(() => {}), { timeout: 50 }), clock);
    const b = track(chain!.execute(() => new Promise(() => {}), { timeout: 50 }), clock);
    await clock.advance(50);
    // Settled by the virtual clock itself, not by wall time passing meanwhile.
    expect(a.now).toMatchObject({ ok: true, value: 'fb', at: START + 50 });
    expect(b.now).toMatchObject({ ok: true, value: 'fb', at: START + 50 });
  });

  it('rejects a clock that is not one with ConfigError naming the option', () => {
    expect(() => fallback(() => 1, { clock: { now: () => 0 } } as never)).toThrow(/clock: expected a Clock/);
  });
});

describe('fallbackChain', () => {
  it("keeps trying handlers after a deadline has passed, but none after the caller's own cancellation", async () => {
    const clock = new TestClock(START);
    const tried: number[] = [];
    const chain = () =>
      fallbackChain(
        (_e, ctx) => (tried.push(1), Promise.reject(ctx.signal.reason)),
        () => (tried.push(2), 'second'),
      );
    const deadline = new AbortController();
    const byDeadline = track(policy({ clock }).use(chain()).execute(() => new Promise(() => {}), { signal: deadline.signal }), clock);
    deadline.abort(new DOMException('timed out', 'TimeoutError'));
    expect(await byDeadline.settled).toMatchObject({ ok: true, value: 'second' });
    expect(tried).toEqual([1, 2]);
    tried.length = 0;
    const caller = new AbortController();
    const byCaller = track(policy({ clock }).use(chain()).execute(() => new Promise(() => {}), { signal: caller.signal }), clock);
    caller.abort(new Error('client went away'));
    expect(await rejection(byCaller)).toMatchObject({ message: 'client went away' });
    expect(tried).toEqual([]);
  });

  it('tries handlers in order until one answers', async () => {
    const order: number[] = [];
    const chain = fallbackChain(
      () => {
        order.push(1);
        throw new Error('cache miss');
      },
      async () => {
        order.push(2);
        return 'secondary' as const;
      },
      () => {
        order.push(3);
        return 'default' as const;
      },
    );
    const events: PolicyEvent[] = [];
    chain.events$.subscribe((e) => events.push(e));
    await expect(chain.execute(() => Promise.reject(new Error('primary')))).resolves.toBe('secondary');
    expect(order).toEqual([1, 2]);
    expect(events.find((e) => e.type === 'fallback')).toMatchObject({ handler: 1 });
  });

  it('rejects with the original thrown value, unchanged, and reports the handlers errors', async () => {
    const original = Object.freeze({ code: 'E_PRIMARY' });
    const h1 = new Error('h1');
    const chain = fallbackChain(
      () => {
        throw h1;
      },
      () => Promise.reject('h2'),
    );
    const events: PolicyEvent[] = [];
    chain.events$.subscribe((e) => events.push(e));
    await expect(chain.execute(() => Promise.reject(original))).rejects.toBe(original);
    const failed = events.find((e) => e.type === 'fallbackFailed') as FallbackFailedEvent;
    expect(failed.error).toBe(original);
    expect(failed.handlerErrors).toEqual([h1, 'h2']);
  });

  it('checks the signal before each handler', async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const ran: number[] = [];
    const chain = fallbackChain(
      () => {
        ran.push(1);
        ac.abort(new Error('stop'));
        throw new Error('h1');
      },
      () => {
        ran.push(2);
        return 'late';
      },
    );
    const p = track(
      chain.execute(() => Promise.reject(new Error('primary')), { signal: ac.signal }),
      clock,
    );
    await expect(rejection(p)).resolves.toBeInstanceOf(Error);
    expect(ran).toEqual([1]);
  });

  it('property: handlers are tried in order, the first success answers, total failure rethrows the original', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), async (succeeds) => {
        const tried: number[] = [];
        const handlers = succeeds.map((ok, i) => () => {
          tried.push(i);
          if (ok) return i;
          throw new Error(`h${i}`);
        });
        const original = new Error('original');
        const first = succeeds.indexOf(true);
        const run = fallbackChain(...handlers).execute(() => Promise.reject(original));
        if (first === -1) {
          await expect(run).rejects.toBe(original);
          expect(tried).toEqual(succeeds.map((_, i) => i));
        } else {
          await expect(run).resolves.toBe(first);
          expect(tried).toEqual(Array.from({ length: first + 1 }, (_, i) => i));
        }
      }),
      { numRuns: runs(200) },
    );
  });

  it('takes options after the handlers: a clock for execute and the durations, a name', async () => {
    const clock = new TestClock(START);
    const chain = fallbackChain(
      () => {
        throw new Error('h1');
      },
      () => 'h2' as const,
      { clock, name: 'reads' },
    );
    expect(chain.name).toBe('reads');
    const p = track(
      chain.execute(() => new Promise(() => {}), { timeout: 100 }),
      clock,
    );
    await clock.advance(100);
    expect(await p.settled).toMatchObject({ ok: true, value: 'h2', at: START + 100 });
    const outcomes: PolicyEvent[] = [];
    chain.events$.subscribe((e) => e.type === 'outcome' && outcomes.push(e));
    const answered = track(
      chain.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(new Error('down')), 30))),
      clock,
    );
    await clock.advance(30);
    expect(await answered.settled).toMatchObject({ ok: true, value: 'h2' });
    expect(outcomes).toMatchObject([{ policy: 'reads', result: 'fallback', durationMs: 30 }]);
  });

  it('rejects bad handlers and options with ConfigError', () => {
    expect(() => fallbackChain(() => 1, { clok: 1 } as never)).toThrow(/invalid fallbackChain options: clok: unknown option/);
    expect(() => fallbackChain()).toThrow(ConfigError);
    expect(() => fallbackChain(() => 1, 'x' as never)).toThrow(/\[1\]/);
    expect(() => fallback(42 as never)).toThrow(ConfigError);
    expect(() => fallback(() => 1, { handel: () => true } as never)).toThrow(/handel: unknown option/);
  });
});
