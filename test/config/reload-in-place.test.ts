import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { fromConfig } from '../../api/config.js';
import { ConfigError, RateLimitedError } from '../../lib/errors.js';
import { rateLimiter, RateLimiterPolicy, tokenBucket } from '../../policies/rate-limiter/index.js';
import { TestClock } from '../../lib/testing.js';
import { CachePolicy } from '../../policies/cache/index.js';
import { ChaosPolicy } from '../../policies/chaos/index.js';
import { HedgePolicy } from '../../policies/hedge/index.js';
import { chaos } from '../../policies/chaos/index.js';
import { hedge } from '../../policies/hedge/index.js';
import { bulkhead, BulkheadPolicy } from '../../policies/bulkhead/index.js';
import type { PolicyEvent } from '../../lib/events.js';
import type { LeakyBucket, SlidingWindow } from '../../policies/rate-limiter/index.js';
import type { KeyedBulkheadPolicy } from '../../policies/bulkhead/index.js';
import type { LoadShedderPolicy } from '../../policies/load-shedder/index.js';
import type { AdaptiveLimiterPolicy } from '../../policies/adaptive-limiter/index.js';
import type { IdempotentPolicy } from '../../policies/idempotent/index.js';
import type { KeyedBreakerPolicy } from '../../policies/breaker-registry/index.js';

describe('hot reload in place: hedge, chaos, cache', () => {
  it('changes a hedge’s delay and maxHedged in place', async () => {
    const clock = new TestClock();
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'hedge', delayMs: 100, maxHedged: 1 }] });
    const p = fromConfig(configs, {}, { clock });
    const h = p.pipeline.policies[0] as HedgePolicy;
    configs.next({ policies: [{ type: 'hedge', delayMs: 10, maxHedged: 2 }] });
    expect(p.pipeline.policies[0]).toBe(h);
    expect(h.maxHedged).toBe(2);
    const started: number[] = [];
    const call = p.execute(
      (ctx) =>
        new Promise<number>((resolve) => {
          started.push(clock.now());
          clock.setTimeout(() => resolve(ctx.attempt), 1_000);
        }),
    );
    await clock.advance(1_000);
    await call;
    // the new delay: hedges at 10 and 20 ms, not 100
    expect(started).toEqual([0, 10, 20]);
  });

  it('changes chaos rates in place', async () => {
    const clock = new TestClock();
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'chaos', injectionRate: 0, fault: 'boom' }] });
    const p = fromConfig(configs, { boom: () => new Error('injected') }, { clock, random: () => 0.5 });
    const c = p.pipeline.policies[0] as ChaosPolicy;
    await expect(p.execute(async () => 'ok')).resolves.toBe('ok');
    configs.next({ policies: [{ type: 'chaos', injectionRate: 1, fault: 'boom' }] });
    expect(p.pipeline.policies[0]).toBe(c);
    expect(c.injectionRate).toBe(1);
    await expect(p.execute(async () => 'ok')).rejects.toThrow('injected');
  });

  it('changes a cache’s TTLs in place and keeps what it holds; another store builds a new cache', async () => {
    const clock = new TestClock();
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'cache', ttlMs: 1_000 }] });
    const p = fromConfig(configs, {}, { clock });
    const c = p.pipeline.policies[0] as CachePolicy;
    let runs = 0;
    const op = async () => ++runs;
    expect(await p.execute(op, { key: 'k' })).toBe(1);
    configs.next({ policies: [{ type: 'cache', ttlMs: 60_000 }] });
    expect(p.pipeline.policies[0]).toBe(c);
    expect(c.ttlMs).toBe(60_000);
    // the value stored before the reload is still there, with its own TTL
    expect(await p.execute(op, { key: 'k' })).toBe(1);
    await clock.advance(1_001);
    expect(await p.execute(op, { key: 'k' })).toBe(2);
    // stored after the reload: fresh for 60 s
    await clock.advance(30_000);
    expect(await p.execute(op, { key: 'k' })).toBe(2);
  });

  it('a bad reload is refused and keeps the policy as it was', () => {
    const clock = new TestClock();
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'hedge', delayMs: 100 }] });
    const p = fromConfig(configs, {}, { clock });
    const rejected: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
    const h = p.pipeline.policies[0] as HedgePolicy;
    configs.next({ policies: [{ type: 'hedge', delayMs: -1 }] });
    expect(rejected).toHaveLength(1);
    expect(p.pipeline.policies[0]).toBe(h);
  });
});

describe('reconfigure', () => {
  it('refuses a bad option with a ConfigError and changes nothing', () => {
    const h = hedge({ delayMs: 50, maxHedged: 2 });
    expect(() => h.reconfigure({ maxHedged: 0 })).toThrow(ConfigError);
    expect(h.maxHedged).toBe(2);
    const c = chaos({ injectionRate: 0.2, fault: new Error('x') });
    expect(() => c.reconfigure({ injectionRate: 2 })).toThrow(/injectionRate/);
    expect(c.injectionRate).toBe(0.2);
  });
});

describe('hot reload in place: bulkhead, fallback', () => {
  it('raises a bulkhead’s limit in place: its waiters run at once, its running calls are kept', async () => {
    const clock = new TestClock();
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'bulkhead', limit: 1, queue: 5 }] });
    const p = fromConfig(configs, {}, { clock });
    const b = p.pipeline.policies[0] as BulkheadPolicy;
    const releases: Array<() => void> = [];
    const started: number[] = [];
    const calls = [1, 2, 3].map((n) =>
      p.execute(
        () =>
          new Promise<number>((resolve) => {
            started.push(n);
            releases.push(() => resolve(n));
          }),
      ),
    );
    await Promise.resolve();
    expect([b.executing, b.queued]).toEqual([1, 2]);
    configs.next({ policies: [{ type: 'bulkhead', limit: 3, queue: 5 }] });
    expect(p.pipeline.policies[0]).toBe(b);
    expect([b.limit, b.executing, b.queued]).toEqual([3, 3, 0]);
    for (const r of releases) r();
    expect(await Promise.all(calls)).toEqual([1, 2, 3]);
    expect(started).toEqual([1, 2, 3]);
  });

  it('refuses a change of a bulkhead’s partitions in place, naming it, and keeps the bulkhead', () => {
    const b = bulkhead({ limit: 4, partitions: { live: 0.5, batch: 0.5 } });
    expect(() => b.reconfigure({ limit: 4, partitions: { live: 1 } })).toThrow(/partitions: cannot change in place/);
    b.reconfigure({ limit: 8, partitions: { live: 0.75, batch: 0.25 } });
    expect(b.limit).toBe(8);
    expect(() => b.reconfigure({ limit: 0 })).toThrow(ConfigError);
    expect(b.limit).toBe(8);
  });

  it('swaps a fallback’s handler by name in place', async () => {
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'fallback', handler: 'stale' }] });
    const p = fromConfig(configs, { stale: () => 'stale', empty: () => 'empty' });
    const f = p.pipeline.policies[0];
    const fail = async (): Promise<string> => Promise.reject(new Error('down'));
    await expect(p.execute(fail)).resolves.toBe('stale');
    configs.next({ policies: [{ type: 'fallback', handler: 'empty' }] });
    expect(p.pipeline.policies[0]).toBe(f);
    await expect(p.execute(fail)).resolves.toBe('empty');
  });
});

describe('hot reload in place: a token bucket’s rate', () => {
  it('takes a new rate and burst in place, keeping the tokens it holds; another algorithm is refused, naming why', async () => {
    const clock = new TestClock();
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'rateLimiter', algorithm: { kind: 'tokenBucket', rate: 1, burst: 2 } }] });
    const p = fromConfig(configs, {}, { clock });
    const rejected: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
    const limiter = p.pipeline.policies[0] as RateLimiterPolicy;
    const ok = async () => 'ok';
    await p.execute(ok);
    await p.execute(ok);
    await expect(p.execute(ok)).rejects.toBeInstanceOf(RateLimitedError);
    configs.next({ policies: [{ type: 'rateLimiter', algorithm: { kind: 'tokenBucket', rate: 10, burst: 5 } }] });
    expect(p.pipeline.policies[0]).toBe(limiter);
    // the bucket is still empty: the reload did not refill it
    await expect(p.execute(ok)).rejects.toBeInstanceOf(RateLimitedError);
    await clock.advance(100); // one token at the new rate
    await expect(p.execute(ok)).resolves.toBe('ok');
    await expect(p.execute(ok)).rejects.toBeInstanceOf(RateLimitedError);
    configs.next({ policies: [{ type: 'rateLimiter', algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 1_000 } }] });
    expect(p.pipeline.policies[0]).toBe(limiter);
    expect(rejected).toEqual([
      expect.objectContaining({ reason: 'invalid', issues: [{ path: 'policies[0].algorithm', message: 'cannot change in place to another kind of algorithm; build a new limiter' }] }),
    ]);
  });

  it('refuses in code a change of algorithm kind, naming algorithm', () => {
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 5 }) });
    expect(() => limiter.reconfigure({ algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 1_000 } })).toThrow(/algorithm: cannot change in place/);
    expect(() => limiter.reconfigure({ algorithm: { kind: 'tokenBucket', rate: -1 } })).toThrow(ConfigError);
    expect((limiter.algorithm as ReturnType<typeof tokenBucket>).rate).toBe(5);
  });
});

describe('hot reload in place: every algorithm, keyed limits', () => {
  it("changes a sliding window's limit and a leaky bucket's rate in place; a window of another length is refused, naming it", () => {
    const configs = new BehaviorSubject<unknown>({
      policies: [
        { type: 'rateLimiter', name: 'w', algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 1_000 } },
        { type: 'rateLimiter', name: 'l', algorithm: { kind: 'leakyBucket', rate: 5 } },
      ],
    });
    const p = fromConfig(configs, {}, { clock: new TestClock() });
    const rejected: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
    const [w, l] = p.pipeline.policies as RateLimiterPolicy[];
    configs.next({
      policies: [
        { type: 'rateLimiter', name: 'w', algorithm: { kind: 'slidingWindow', limit: 9, windowMs: 1_000 } },
        { type: 'rateLimiter', name: 'l', algorithm: { kind: 'leakyBucket', rate: 50, capacity: 3 } },
      ],
    });
    expect(p.pipeline.policies).toEqual([w, l]);
    expect((w!.algorithm as SlidingWindow).limit).toBe(9);
    expect([(l!.algorithm as LeakyBucket).rate, (l!.algorithm as LeakyBucket).capacity]).toEqual([50, 3]);
    configs.next({ policies: [{ type: 'rateLimiter', name: 'w', algorithm: { kind: 'slidingWindow', limit: 9, windowMs: 5_000 } }, { type: 'rateLimiter', name: 'l', algorithm: { kind: 'leakyBucket', rate: 50, capacity: 3 } }] });
    expect(rejected).toEqual([
      expect.objectContaining({ issues: [{ path: 'policies[0].algorithm.windowMs', message: 'cannot change in place (it shapes the window); build a new limiter' }] }),
    ]);
    expect((w!.algorithm as SlidingWindow).windowMs).toBe(1_000);
  });

  it("changes a keyed limiter's per-key rate and a keyed bulkhead's per-key limit in place, keeping each key's state", async () => {
    const clock = new TestClock();
    const entries = (rate: number, limit: number) => ({
      policies: [
        { type: 'keyedBulkhead', metaKey: 'tenant', limit },
        { type: 'keyedRateLimiter', metaKey: 'tenant', algorithm: { kind: 'tokenBucket', rate, burst: 1 } },
      ],
    });
    const configs = new BehaviorSubject<unknown>(entries(1, 1));
    const p = fromConfig(configs, {}, { clock });
    const [bulkheads, limiter] = p.pipeline.policies as [KeyedBulkheadPolicy, RateLimiterPolicy];
    const meta = { tenant: 'acme' };
    await p.execute(async () => 'ok', { meta }); // acme's bucket is empty now
    configs.next(entries(10, 4));
    expect(p.pipeline.policies).toEqual([bulkheads, limiter]);
    // still empty after the reload; refilled at the new rate
    await expect(p.execute(async () => 'ok', { meta })).rejects.toBeInstanceOf(RateLimitedError);
    await clock.advance(100);
    await expect(p.execute(async () => 'ok', { meta })).resolves.toBe('ok');
    expect(bulkheads.peek('acme')!.limit).toBe(4);
    // another key picker is another policy: refused in place
    const rejected: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
    configs.next({ policies: [{ type: 'keyedBulkhead', metaKey: 'route', limit: 4 }, entries(10, 4).policies[1]] });
    expect(rejected).toEqual([expect.objectContaining({ issues: [expect.objectContaining({ path: 'policies[0]', message: expect.stringContaining('its key (metaKey or keyOf) picks the bulkheads it holds') })] })]);
  });
});

describe('hot reload in place: loadShedder, adaptiveLimiter, idempotent, keyedBreaker', () => {
  it('changes each in place, keeping the policy and its state; a change it cannot make is refused, naming the option', async () => {
    const clock = new TestClock();
    const entries = (threshold: number, maxLimit: number, ttlMs: number, breakerThreshold: number, windowMs = 5_000) => ({
      policies: [
        { type: 'loadShedder', cpuThreshold: threshold, windowMs, cpu: 'cpu' },
        { type: 'adaptiveLimiter', maxLimit },
        { type: 'idempotent', ttlMs },
        { type: 'keyedBreaker', metaKey: 'host', defaults: { strategy: 'consecutiveFailures', threshold: breakerThreshold } },
      ],
    });
    const configs = new BehaviorSubject<unknown>(entries(0.8, 50, 60_000, 3));
    const p = fromConfig(configs, { cpu: () => 0.1 }, { clock });
    const rejected: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
    const [shedder, limiter, idem, keyed] = p.pipeline.policies as [LoadShedderPolicy, AdaptiveLimiterPolicy, IdempotentPolicy, KeyedBreakerPolicy];
    // a, held by the keyed breaker, has two failures in a row before the reload
    const fail = () => Promise.reject(new Error('down'));
    for (let i = 0; i < 2; i++) await p.execute(fail, { meta: { host: 'a' } }).catch(() => undefined);
    configs.next(entries(0.6, 80, 10_000, 4));
    expect(rejected).toEqual([]);
    expect(p.pipeline.policies).toEqual([shedder, limiter, idem, keyed]);
    expect([shedder.cpuThreshold, limiter.maxLimit, idem.ttlMs]).toEqual([0.6, 80, 10_000]);
    // a keeps its streak under the new threshold: two more failures open it (4 in a row), not one
    await p.execute(fail, { meta: { host: 'a' } }).catch(() => undefined);
    expect(keyed.get('a').state).toBe('closed');
    await p.execute(fail, { meta: { host: 'a' } }).catch(() => undefined);
    expect(keyed.get('a').state).toBe('open');
    // the shedder's window shape cannot change in place
    configs.next(entries(0.6, 80, 10_000, 4, 10_000));
    expect(rejected).toEqual([expect.objectContaining({ issues: [{ path: 'policies[0].windowMs', message: 'cannot change in place (it shapes the window); build a new load shedder' }] })]);
    expect(shedder.cpuThreshold).toBe(0.6);
  });
});
