import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  circuitBreaker,
  fallback,
  pipe,
  policy,
  RateLimitedError,
  sreBreaker,
  timeout,
  TimeoutError,
  type PolicyEvent,
} from '../../../api/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { collect, T0 } from '../../helpers/breakers.js';

function setup(options: Parameters<typeof sreBreaker>[0] = {}) {
  const clock = new TestClock(T0);
  return { clock, b: sreBreaker({ clock, random: scriptedRandom(), ...options }) };
}

describe('sreBreaker.execute (A12)', () => {
  it('records a success, a failure, and rethrows the original value', async () => {
    const { b } = setup();
    await expect(b.execute(() => 1)).resolves.toBe(1);
    const thrown = { not: 'an Error' };
    await expect(b.execute(() => Promise.reject(thrown))).rejects.toBe(thrown);
    await expect(
      b.execute(() => {
        throw 'sync';
      }),
    ).rejects.toBe('sync');
    expect(b.stats()).toMatchObject({ accepts: 1, total: 3 });
  });

  it("handle returning false (go-zero's acceptable) counts as a success; a throw inside handle as a failure", async () => {
    const { b } = setup({
      handle: (e) => {
        if (e === 'bad handle') throw new Error('oops');
        return e !== 'not found';
      },
    });
    await expect(b.execute(() => Promise.reject('not found'))).rejects.toBe('not found');
    expect(b.stats()).toMatchObject({ accepts: 1, total: 1 });
    await expect(b.execute(() => Promise.reject('bad handle'))).rejects.toBe('bad handle');
    expect(b.stats()).toMatchObject({ accepts: 1, total: 2 });
  });

  it('handleResult turns a result into a failure, still returned', async () => {
    const { b } = setup({ handleResult: (r) => (r as { status: number }).status >= 500 });
    await expect(b.execute(() => ({ status: 503 }))).resolves.toEqual({ status: 503 });
    expect(b.stats()).toMatchObject({ accepts: 0, total: 1 });
  });

  it("a caller's signal already aborted rejects at once with its reason, running and recording nothing", async () => {
    const { b } = setup();
    const ctrl = new AbortController();
    ctrl.abort('gone');
    let ran = false;
    await expect(b.execute(() => (ran = true), { signal: ctrl.signal })).rejects.toBe('gone');
    expect(ran).toBe(false);
    expect(b.stats().total).toBe(0);
  });

  it('a caller abort during the call releases the permit, recording nothing', async () => {
    const { b } = setup();
    const ctrl = new AbortController();
    const p = b.execute(() => new Promise(() => {}), { signal: ctrl.signal });
    ctrl.abort('cancelled');
    await expect(p).rejects.toBe('cancelled');
    expect(b.stats().total).toBe(0);
  });

  it("breakwater's own rejections from inner policies record nothing", async () => {
    const { clock, b } = setup();
    const inner = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, clock });
    inner.isolate();
    const p = pipe(inner, b);
    await expect(p.execute(() => 1)).rejects.toBeInstanceOf(BrokenCircuitError);
    await expect(b.execute(() => Promise.reject(new RateLimitedError('limiter', 10)))).rejects.toBeInstanceOf(RateLimitedError);
    expect(b.stats().total).toBe(0);
  });

  it('an enclosing deadline is a failure settled at that moment', async () => {
    const { clock, b } = setup();
    let settledAt = 0;
    const p = pipe(b, timeout({ ms: 100, clock })).execute(() => new Promise(() => {}));
    p.catch(() => (settledAt = clock.now()));
    await clock.advance(99);
    expect(b.stats().total).toBe(0);
    await clock.advance(1);
    await expect(p).rejects.toBeInstanceOf(TimeoutError);
    expect(settledAt).toBe(T0 + 100);
    expect(b.stats()).toMatchObject({ accepts: 0, total: 1 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('an execute deadline counts too, whatever handle says', async () => {
    const { clock, b } = setup({ handle: () => false });
    const p = expect(b.execute(() => new Promise(() => {}), { timeout: 50 })).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(50);
    await p;
    expect(b.stats()).toMatchObject({ accepts: 0, total: 1 });
  });

  it('a shed call rejects with BrokenCircuitError, which a fallback answers', async () => {
    const clock = new TestClock(T0);
    const p = policy({ clock, random: scriptedRandom(0) })
      .breaker()
      .fallback(() => 'fallback' as const);
    for (let i = 0; i < 6; i++) await p.execute(() => Promise.reject(new Error('x')));
    let ran = false;
    await expect(p.execute(() => (ran = true))).resolves.toBe('fallback');
    expect(ran).toBe(false);
  });

  it('emits one outcome per call, with rejected for shed calls', async () => {
    const clock = new TestClock(T0);
    const b = sreBreaker({ clock, random: scriptedRandom(0) });
    const events = collect(b);
    await b.execute(async () => {
      await clock.advance(30);
      return 1;
    });
    for (let i = 0; i < 6; i++) await b.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    await b.execute(() => 1).catch(() => {});
    const outcomes = events.filter((e): e is Extract<PolicyEvent, { type: 'outcome' }> => e.type === 'outcome');
    expect(outcomes.map((e) => e.result)).toEqual(['success', ...Array(6).fill('failure'), 'rejected']);
    expect(outcomes[0]!.durationMs).toBe(30);
  });

  it('works inside the canonical chain: fallback answers the breaker-shed call', async () => {
    const clock = new TestClock(T0);
    const chain = pipe(timeout({ ms: 100, clock }), sreBreaker({ clock, random: scriptedRandom(0) }), fallback(() => null));
    for (let i = 0; i < 6; i++) await chain.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    await expect(chain.execute(() => 1)).resolves.toBe(null);
  });
});
