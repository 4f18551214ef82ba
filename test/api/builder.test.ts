import { describe, expect, it } from 'vitest';
import { fallback, isBrokenCircuitError, isRateLimitedError, pipe, policy, systemClock, timeout } from '../../api/index.js';
import { TestClock } from '../../lib/testing.js';
import { track } from '../helpers/track.js';

const T0 = 1_700_000_000_000;

const never = () => new Promise<never>(() => {});

describe('api/builder.ts: every step runs on the builder clock', () => {
  it('hedge, chaos, cache, circuitBreaker, keyedBreaker, rateLimiter, sreBreaker use it; bulkhead, degrade, loadShedder hold it', async () => {
    const clock = new TestClock(T0);
    const b = () => policy({ clock, random: () => 0 });

    let calls = 0;
    void b()
      .hedge({ delayMs: 5 })
      .execute(() => (calls++, never()))
      .catch(() => undefined);
    await clock.advance(5);
    expect(calls).toBe(2);

    const c = track(b().chaos({ latency: 5, injectionRate: 1 }).execute(() => 'v'), clock);
    await clock.advance(5);
    expect(c.now).toEqual({ ok: true, value: 'v', at: T0 + 10 });

    let n = 0;
    const cached = b().cache({ ttlMs: 10 });
    await cached.execute(() => ++n, { key: 'k' });
    await cached.execute(() => ++n, { key: 'k' });
    expect(n).toBe(1);
    await clock.advance(10);
    await cached.execute(() => ++n, { key: 'k' });
    expect(n).toBe(2);

    const fail = () => Promise.reject(new Error('x'));
    for (const p of [
      b().circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 100 }),
      b().keyedBreaker(() => 'k', { defaults: { strategy: 'consecutiveFailures', threshold: 1, openMs: 100 } }),
    ]) {
      await p.execute(fail).catch(() => undefined);
      await expect(p.execute(() => 'ok')).rejects.toSatisfy(isBrokenCircuitError);
      await clock.advance(100);
      await expect(p.execute(() => 'ok')).resolves.toBe('ok');
    }

    const rl = b().rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 1, burst: 1 } });
    await rl.execute(() => 1);
    await expect(rl.execute(() => 1)).rejects.toSatisfy(isRateLimitedError);
    await clock.advance(1_000);
    await expect(rl.execute(() => 1)).resolves.toBe(1);

    const held = b()
      .bulkhead({ limit: 1 })
      .degrade({ when: () => false, to: () => 'd' })
      .loadShedder({ cpu: 0 });
    expect(held.policies.map((p) => (p as unknown as { clock: unknown }).clock)).toEqual([clock, clock, clock]);
    expect(b().breaker().policies.map((p) => p.name)).toEqual(['breaker']);
  });
});

describe('api/builder.ts: composition', () => {
  it('a pipeline used as a layer runs its own layers, then the rest of the chain', async () => {
    const clock = new TestClock(T0);
    const order: string[] = [];
    const mark = (label: string) => fallback(() => label, { handle: () => (order.push(label), true) });
    const layer = pipe(mark('a'), mark('b'));
    const p = policy({ clock }).use(timeout({ ms: 5, clock })).use(layer).use(mark('c'));
    // a is inside b: a answers the timeout; b and c see a success
    const r = track(p.execute(never), clock);
    await clock.advance(5);
    expect(r.now).toEqual({ ok: true, value: 'a', at: T0 + 5 });
    expect(order).toEqual(['a']);
  });

  it('the builder names the pipeline, and gives its clock and random to the policies it builds', async () => {
    const clock = new TestClock(T0);
    const b = policy({ clock, name: 'svc', random: () => 0 }).timeout(10).retry({ maxAttempts: 2 });
    expect(b.name).toBe('svc');
    expect(b.clock).toBe(clock);
    expect(policy().name).toBe('pipeline');
    // without a clock of its own, the builder's root context runs on the system clock, whatever its policies use
    expect(policy().use(timeout({ ms: 1, clock })).clock).toBe(systemClock);
    let calls = 0;
    const r = track(
      b.execute(() => {
        calls++;
        return never();
      }),
      clock,
    );
    // random 0: full jitter gives no delay between attempts; each attempt times out at 10 ms on the test clock
    await clock.advance(20);
    expect(calls).toBe(2);
    expect(r.now).toMatchObject({ ok: false, at: T0 + 20 });
  });
});
