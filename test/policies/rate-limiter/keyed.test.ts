import { describe, expect, it } from 'vitest';
import { ConfigError, isRateLimitedError, keyedRate, rateLimiter, RateLimitedError, tokenBucket, type RateAlgorithm } from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { issuesOf } from '../../helpers/config-issues.js';

const T0 = 1_700_000_000_000;

function setup(options: Partial<Parameters<typeof keyedRate>[0]> = {}) {
  const clock = new TestClock(T0);
  const algorithm = keyedRate({ key: (ctx) => ctx.meta.tenant ?? 'anonymous', algorithm: { kind: 'tokenBucket', rate: 2, burst: 3 }, ...options });
  const limiter = rateLimiter({ algorithm, clock, reserve: { sheddable: 0 } });
  /** True when the call of `tenant` was admitted. */
  const call = (tenant: string) =>
    limiter.execute(() => true, { meta: { tenant } }).catch((e: unknown) => {
      if (!isRateLimitedError(e)) throw e;
      return false;
    });
  return { clock, algorithm, limiter, call };
}

describe('keyedRate', () => {
  it('gives each key its own limit: one key spending its burst leaves the others theirs', async () => {
    const { call } = setup();
    const a: boolean[] = [];
    for (let i = 0; i < 5; i++) a.push(await call('a'));
    expect(a).toEqual([true, true, true, false, false]);
    const b: boolean[] = [];
    for (let i = 0; i < 4; i++) b.push(await call('b'));
    expect(b).toEqual([true, true, true, false]);
  });

  it('holds rate × t + burst per key, each key alone, whatever the other keys do', async () => {
    const rate = 2;
    const burst = 3;
    const { clock, call } = setup();
    const random = seededRandom(11);
    const admitted = new Map<string, number>();
    const keys = ['a', 'b', 'c'];
    const spanMs = 60_000;
    while (clock.now() - T0 < spanMs) {
      // key a hammers, b calls steadily, c now and then
      const tenant = random() < 0.7 ? 'a' : random() < 0.8 ? 'b' : 'c';
      if (await call(tenant)) admitted.set(tenant, (admitted.get(tenant) ?? 0) + 1);
      await clock.advance(Math.floor(random() * 40));
    }
    const t = (clock.now() - T0) / 1000;
    for (const k of keys) expect(admitted.get(k) ?? 0, k).toBeLessThanOrEqual(rate * t + burst);
    // the hammering key got its whole rate: the limit is per key, not shared
    expect(admitted.get('a')).toBeGreaterThanOrEqual(Math.floor(rate * t));
  });

  it('refuses with the retry time of the key asked about', async () => {
    const { call, limiter } = setup();
    for (let i = 0; i < 3; i++) await call('a');
    const e = await limiter.execute(() => 1, { meta: { tenant: 'a' } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfterMs).toBe(500); // one token at 2 per second
  });

  it('drops a key idle for longer than idleMs once its bucket is full again, and keeps it while it is not', async () => {
    const { clock, algorithm, call } = setup({ idleMs: 1_000 });
    for (let i = 0; i < 3; i++) await call('a'); // empty: refills in 1.5 s
    await clock.advance(1_001);
    await call('b');
    expect([...algorithm.keys()]).toEqual(['a', 'b']); // idle, but its bucket is not full: dropping it would give a fresh burst
    await clock.advance(1_001);
    await call('b');
    expect([...algorithm.keys()]).toEqual(['b']);
  });

  it('holds at most maxKeys: a new key takes the place of an idle one, and is refused while every key holds tokens spent', async () => {
    const { clock, algorithm, call } = setup({ maxKeys: 2, idleMs: 600_000 });
    await call('a');
    await call('b');
    expect(await call('c')).toBe(false); // a and b have spent tokens
    expect(algorithm.size).toBe(2);
    await clock.advance(500); // a's and b's buckets are full again
    expect(await call('c')).toBe(true);
    expect([...algorithm.keys()]).toEqual(['b', 'c']);
  });

  it('makes each key its algorithm with a factory, and hands the limiter to it', async () => {
    const made: string[] = [];
    const attached: unknown[] = [];
    const { call, limiter } = setup({
      algorithm: (key: string): RateAlgorithm => {
        made.push(key);
        const b = tokenBucket({ rate: 1, burst: 1 });
        return Object.assign(b, { attach: (h: unknown) => attached.push(h) });
      },
    });
    expect(await call('x')).toBe(true);
    expect(await call('x')).toBe(false);
    expect(await call('y')).toBe(true);
    expect(made).toEqual(['x', 'y']);
    expect(attached).toEqual([limiter, limiter]);
  });

  it('rejects the call with what the key function throws', async () => {
    const clock = new TestClock(T0);
    const boom = new Error('no tenant');
    const limiter = rateLimiter({
      algorithm: keyedRate({
        key: () => {
          throw boom;
        },
        algorithm: { kind: 'tokenBucket', rate: 1 },
      }),
      clock,
    });
    await expect(limiter.execute(() => 1)).rejects.toBe(boom);
  });

  it('refuses bad options with ConfigError naming the option', () => {
    expect(() => keyedRate({} as never)).toThrow(ConfigError);
    expect(issuesOf(() => keyedRate({ key: (c) => c.meta.t ?? '', algorithm: { kind: 'tokenBucket', rate: 1 }, maxKeys: 0, idleMs: 0 }))).toEqual([
      { path: 'maxKeys', message: 'expected an integer >= 1' },
      { path: 'idleMs', message: 'expected a number greater than 0' },
    ]);
    expect(issuesOf(() => keyedRate({ key: 'tenant' as never, algorithm: { kind: 'tokenBucket', rate: 1 } }))).toEqual([{ path: 'key', message: 'expected a function (ctx) => string' }]);
  });
});

describe('KeyedRateAlgorithm.reconfigure', () => {
  it("takes a new rate and burst for every key held, keeping each key's tokens, and for the keys made after", async () => {
    const { clock, algorithm, call } = setup();
    for (let i = 0; i < 3; i++) await call('a'); // a's bucket is empty
    algorithm.reconfigure({ algorithm: { kind: 'tokenBucket', rate: 10, burst: 5 } });
    // still empty: the reload did not refill a
    expect(await call('a')).toBe(false);
    await clock.advance(100); // one token at the new rate, not at 2/s
    expect(await call('a')).toBe(true);
    // a new key starts with the new burst
    const b: boolean[] = [];
    for (let i = 0; i < 6; i++) b.push(await call('b'));
    expect(b).toEqual([true, true, true, true, true, false]);
  });

  it('changes its bounds in place; left out, they return to their defaults', () => {
    const { algorithm } = setup({ maxKeys: 5, idleMs: 1_000 });
    algorithm.reconfigure({ algorithm: { kind: 'tokenBucket', rate: 2, burst: 3 }, maxKeys: 7, idleMs: 2_000 });
    expect([algorithm.maxKeys, algorithm.idleMs]).toEqual([7, 2_000]);
    algorithm.reconfigure({ algorithm: { kind: 'tokenBucket', rate: 2, burst: 3 } });
    expect([algorithm.maxKeys, algorithm.idleMs]).toEqual([10_000, 300_000]);
  });

  it('refuses another kind, a window of another length, a limiter made by a function or a bad value, changing nothing', async () => {
    const { algorithm, call } = setup();
    for (let i = 0; i < 3; i++) await call('a');
    expect(issuesOf(() => algorithm.reconfigure({ algorithm: { kind: 'leakyBucket', rate: 5 } }))).toEqual([
      { path: 'algorithm', message: 'cannot change in place (tokenBucket cannot become leakyBucket); build a new limiter' },
    ]);
    expect(issuesOf(() => algorithm.reconfigure({ algorithm: { kind: 'tokenBucket', rate: -1 } }))[0]!.path).toMatch(/^algorithm/);
    expect(issuesOf(() => algorithm.reconfigure({ algorithm: { kind: 'tokenBucket', rate: 2 }, maxKeys: 0 }))[0]!.path).toBe('maxKeys');
    // a still holds its empty bucket at the old rate: no token before 500 ms
    expect(await call('a')).toBe(false);
    const windows = keyedRate({ key: () => 'k', algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 1_000 } });
    expect(issuesOf(() => windows.reconfigure({ algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 2_000 } }))).toEqual([
      { path: 'algorithm.windowMs', message: 'cannot change in place (it shapes the window); build a new limiter' },
    ]);
    const made = keyedRate({ key: () => 'k', algorithm: () => tokenBucket({ rate: 1 }) });
    expect(issuesOf(() => made.reconfigure({ algorithm: { kind: 'tokenBucket', rate: 2 } }))).toEqual([
      { path: 'algorithm', message: "cannot change in place (each key's limiter is made by a function); build a new limiter" },
    ]);
  });
});
