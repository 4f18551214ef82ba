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
  type PolicyEvent,
} from '../../../lib/index.js';
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

  it('answers an inner timeout but not its own enclosing deadline', async () => {
    const clock = new TestClock(START);
    const inner = track(
      policy({ clock })
        .timeout(10)
        .fallback(() => 'fb')
        .execute(() => new Promise(() => {})),
      clock,
    );
    const outer = track(
      policy({ clock })
        .fallback(() => 'fb')
        .execute(() => new Promise(() => {}), { timeout: 10 }),
      clock,
    );
    await clock.advance(10);
    expect(await inner.settled).toMatchObject({ ok: true, value: 'fb' });
    expect(await rejection(outer)).toBeInstanceOf(TimeoutError);
  });
});

describe('fallbackChain', () => {
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

  it('rejects bad handlers and options with ConfigError', () => {
    expect(() => fallbackChain()).toThrow(ConfigError);
    expect(() => fallbackChain(() => 1, 'x' as never)).toThrow(/\[1\]/);
    expect(() => fallback(42 as never)).toThrow(ConfigError);
    expect(() => fallback(() => 1, { handel: () => true } as never)).toThrow(/handel: unknown option/);
  });
});
