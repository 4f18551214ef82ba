import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { circuitBreaker, ConfigError, hedge, pipe, policy, retry, constant, TimeoutError, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { Context, Scope } from '../../../lib/context.js';
import { RUN } from '../../../lib/policy.js';
import { after } from '../../helpers/track.js';

const START = 1_700_000_000_000;

describe('hedge', () => {
  it('slow first and fast second: answers at delay + fast latency and aborts the slow one', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 100, maxHedged: 2, clock });
    const events: PolicyEvent[] = [];
    h.events$.subscribe((e) => events.push(e));
    const signals: AbortSignal[] = [];
    let calls = 0;
    const result = h.execute((ctx) => {
      calls++;
      signals.push(ctx.signal);
      return ctx.attempt === 1 ? after(clock, 10_000, 'slow', ctx) : after(clock, 30, 'fast', ctx);
    });
    let settledAt = 0;
    void result.then(() => (settledAt = clock.now()));
    await clock.advance(130);
    await expect(result).resolves.toBe('fast');
    expect(settledAt).toBe(START + 130);
    expect(calls).toBe(2);
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[1]!.aborted).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['hedged', 'won', 'outcome']);
    expect(events[0]).toMatchObject({ attempt: 2, delayMs: 100 });
    expect(events[1]).toMatchObject({ attempt: 2 });
    expect(events[2]).toMatchObject({ result: 'success', durationMs: 130 });
  });

  it('makes no more than maxHedged extra calls and rejects with the last failure', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 50, maxHedged: 3, clock });
    let calls = 0;
    const result = h.execute((ctx) => {
      calls++;
      return after(clock, 1_000, 0, ctx).then(() => Promise.reject(new Error(`fail ${ctx.attempt}`)));
    });
    const check = expect(result).rejects.toThrow('fail 4');
    await clock.advance(10_000);
    await check;
    expect(calls).toBe(4);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a handled failure starts the next hedge at once; an unhandled one ends the call', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 1_000, maxHedged: 1, clock, handle: (e) => (e as Error).message !== 'fatal' });
    const starts: number[] = [];
    const r1 = h.execute((ctx) => {
      starts.push(clock.now() - START);
      return ctx.attempt === 1 ? after(clock, 10, 0, ctx).then(() => Promise.reject(new Error('x'))) : after(clock, 10, 'ok', ctx);
    });
    await clock.advance(20);
    await expect(r1).resolves.toBe('ok');
    expect(starts).toEqual([0, 10]);

    let calls = 0;
    const r2 = h.execute(() => {
      calls++;
      throw new Error('fatal');
    });
    await expect(r2).rejects.toThrow('fatal');
    expect(calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('delayMs 0 starts every attempt at once; Infinity hedges only after a failure', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const all = hedge({ delayMs: 0, maxHedged: 2, clock }).execute((ctx) => {
      calls++;
      return after(clock, 100 - ctx.attempt * 10, ctx.attempt, ctx);
    });
    expect(calls).toBe(3);
    await clock.advance(70);
    await expect(all).resolves.toBe(3);

    const starts: number[] = [];
    const seq = hedge({ delayMs: Infinity, maxHedged: 2, clock }).execute((ctx) => {
      starts.push(clock.now() - START - 70);
      return after(clock, 500, ctx.attempt, ctx).then((n) => (n < 3 ? Promise.reject(new Error('no')) : n));
    });
    await clock.advance(1_500);
    await expect(seq).resolves.toBe(3);
    expect(starts).toEqual([0, 500, 1_000]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('delay(attempt) sets each hedge delay', async () => {
    const clock = new TestClock(START);
    const starts: number[] = [];
    const h = hedge({ delay: (n) => n * 10, maxHedged: 2, clock });
    const r = h.execute((ctx) => {
      starts.push(clock.now() - START);
      return after(clock, 1_000, ctx.attempt, ctx);
    });
    await clock.advance(1_000);
    await expect(r).resolves.toBe(1);
    expect(starts).toEqual([0, 20, 50]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('the caller abort cancels every attempt at once', async () => {
    const clock = new TestClock(START);
    const signals: AbortSignal[] = [];
    const ac = new AbortController();
    const r = hedge({ delayMs: 10, maxHedged: 2, clock }).execute(
      (ctx) => {
        signals.push(ctx.signal);
        return new Promise<number>(() => {});
      },
      { signal: ac.signal },
    );
    await clock.advance(25);
    expect(signals).toHaveLength(3);
    ac.abort(new Error('bye'));
    await expect(r).rejects.toThrow('bye');
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an enclosing deadline is a TimeoutError and stops hedging', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const r = policy({ clock })
      .hedge({ delayMs: 40, maxHedged: 5 })
      .timeout(100)
      .execute(() => {
        calls++;
        return new Promise<number>(() => {});
      });
    const check = expect(r).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(200);
    await check;
    expect(calls).toBe(3);
    expect(clock.pendingTimers).toBe(0);
  });

  it('works inside retry: each retry is hedged afresh', async () => {
    const clock = new TestClock(START);
    const seen: number[] = [];
    const r = policy({ clock })
      .hedge({ delayMs: 10, maxHedged: 1 })
      .retry({ maxAttempts: 2, backoff: constant(5) })
      .execute((ctx) => {
        seen.push(ctx.attempt);
        return after(clock, 20, 0, ctx).then(() => (ctx.attempt >= 3 ? 'ok' : Promise.reject(new Error('x'))));
      });
    await clock.advance(200);
    await expect(r).resolves.toBe('ok');
    // retry attempt 1 → hedged attempts 1, 2; retry attempt 2 → 2, 3
    expect(seen).toEqual([1, 2, 2, 3]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('works outside retry: retry makes each hedged attempt robust', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const r = policy({ clock })
      .retry({ maxAttempts: 3, backoff: constant(0) })
      .hedge({ delayMs: 10, maxHedged: 1 })
      .execute(() => {
        calls++;
        return calls === 1 ? Promise.reject(new Error('x')) : 'ok';
      });
    await clock.advance(50);
    await expect(r).resolves.toBe('ok');
    expect(calls).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('handleResult makes a result a failure worth hedging', async () => {
    const clock = new TestClock(START);
    const r = hedge({ delayMs: 1_000, clock, handleResult: (v) => v === 503 }).execute((ctx) => (ctx.attempt === 1 ? 503 : 200));
    await clock.advance(0);
    await expect(r).resolves.toBe(200);
    const all = hedge({ delayMs: 0, clock, handleResult: (v) => v === 503 }).execute(() => 503);
    await expect(all).resolves.toBe(503);
    expect(clock.pendingTimers).toBe(0);
  });

  it('leaves no listener on the caller signal nor on the enclosing scope', async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const r = hedge({ delayMs: 10, maxHedged: 2, clock }).execute((ctx) => after(clock, ctx.attempt === 3 ? 1 : 100, ctx.attempt, ctx), {
      signal: ac.signal,
      timeout: 1_000,
    });
    await clock.advance(25);
    await expect(r).resolves.toBe(3);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('unlinks every attempt scope from the enclosing scope when the call settles', async () => {
    const clock = new TestClock(START);
    // an enclosing scope that outlives the call, as a long-lived caller's would
    const root = new Scope(undefined, undefined, Infinity, undefined, 'root', false);
    const ctx = new Context(clock, root, undefined, 1, undefined, {});
    const h = hedge({ delayMs: 10, maxHedged: 2, clock });
    const r = h[RUN]((c) => after(clock, c.attempt === 2 ? 5 : 100, c.attempt, c), ctx, undefined);
    await clock.advance(12);
    const links = root as unknown as { first?: unknown; rest?: unknown[] };
    expect(links.first).toBeDefined(); // attempts linked while running
    await clock.advance(3);
    await expect(r).resolves.toBe(2);
    expect(links.first).toBeUndefined();
    expect(links.rest ?? []).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a losing attempt is cancelled by its caller, the hedge: a breaker inside records nothing for it', async () => {
    const clock = new TestClock(START);
    const b = circuitBreaker({ name: 'inner', strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    const results: string[] = [];
    b.events$.subscribe((e) => e.type === 'outcome' && results.push(e.result));
    const call = pipe(b, hedge({ delayMs: 100, maxHedged: 1, clock })).execute((ctx) =>
      ctx.attempt === 1 ? after(clock, 10_000, 'slow', ctx) : after(clock, 30, 'fast', ctx),
    );
    await clock.advance(130);
    await expect(call).resolves.toBe('fast');
    expect(results.sort()).toEqual(['cancelled', 'success']);
    expect(b.state).toBe('closed'); // a loser counted as a failure would have opened it (threshold 1)
  });

  it('bad options are a ConfigError naming the option', () => {
    const issue = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues.map((i) => i.path).join(',');
      }
      throw new Error('no error');
    };
    expect(issue(() => hedge({ maxHedged: 0 }))).toBe('maxHedged');
    expect(issue(() => hedge({ delayMs: -1 }))).toBe('delayMs');
    expect(issue(() => hedge({ delayMs: 1, delay: () => 1 }))).toBe('delay');
    expect(issue(() => hedge({ handle: 1 as never }))).toBe('handle');
    expect(issue(() => hedge({ nope: 1 } as never))).toBe('nope');
  });
});
