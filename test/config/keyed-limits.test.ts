import { describe, expect, it } from 'vitest';
import { BulkheadRejectedError, ConfigError, KeyedBulkheadPolicy, KeyedRateAlgorithm, RateLimiterPolicy, isRateLimitedError } from '../../api/index.js';
import { fromConfig } from '../../api/config.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { TestClock } from '../../lib/testing.js';

const T0 = 1_700_000_000_000;

describe('keyed limits from config', () => {
  it('a keyedRateLimiter entry keys a token bucket per ctx.meta label', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig({ policies: [{ type: 'keyedRateLimiter', metaKey: 'tenant', algorithm: { kind: 'tokenBucket', rate: 1, burst: 2 }, maxKeys: 5 }] }, {}, { clock });
    const limiter = p.pipeline.policies[0] as RateLimiterPolicy;
    expect(limiter.name).toBe('keyedRateLimiter');
    expect(limiter.algorithm).toBeInstanceOf(KeyedRateAlgorithm);
    expect((limiter.algorithm as KeyedRateAlgorithm).maxKeys).toBe(5);
    const admitted = async (tenant: string) =>
      p.execute(() => true, { meta: { tenant } }).catch((e: unknown) => {
        if (!isRateLimitedError(e)) throw e;
        return false;
      });
    expect([await admitted('a'), await admitted('a'), await admitted('a')]).toEqual([true, true, false]);
    expect(await admitted('b')).toBe(true);
  });

  it('a keyedBulkhead entry keys a bulkhead per named key function', async () => {
    const clock = new TestClock(T0);
    const byRoute = (ctx: ExecutionContext) => ctx.meta.route ?? '';
    const p = fromConfig({ policies: [{ type: 'keyedBulkhead', keyOf: 'byRoute', limit: 1, idleMs: 1_000 }] }, { byRoute }, { clock });
    const b = p.pipeline.policies[0] as KeyedBulkheadPolicy;
    expect(b).toBeInstanceOf(KeyedBulkheadPolicy);
    let release!: () => void;
    const first = p.execute(() => new Promise<void>((r) => (release = r)), { meta: { route: '/a' } });
    await expect(p.execute(() => 1, { meta: { route: '/a' } })).rejects.toBeInstanceOf(BulkheadRejectedError);
    await expect(p.execute(() => 2, { meta: { route: '/b' } })).resolves.toBe(2);
    release();
    await first;
    expect(b.idleMs).toBe(1_000);
  });

  it('refuses an entry without a key, or with both, and bad bounds, naming each', () => {
    const issues = (config: unknown) => {
      try {
        fromConfig(config);
      } catch (e) {
        if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
        throw e;
      }
      return [];
    };
    expect(issues({ policies: [{ type: 'keyedRateLimiter', algorithm: { kind: 'tokenBucket', rate: 1 } }] })).toEqual(['policies[0].metaKey: give metaKey or keyOf']);
    expect(issues({ policies: [{ type: 'keyedBulkhead', metaKey: 'tenant', keyOf: 'f', limit: 1 }] })).toEqual(['policies[0].keyOf: give metaKey or keyOf, not both']);
    expect(issues({ policies: [{ type: 'keyedRateLimiter', metaKey: 't', algorithm: { kind: 'tokenBucket', rate: 1 }, maxKeys: 0 }] })).toEqual([
      'policies[0].maxKeys: expected an integer >= 1',
    ]);
    expect(issues({ policies: [{ type: 'keyedBulkhead', metaKey: 't', limit: 1, idleMs: -1 }] })).toEqual(['policies[0].idleMs: expected a number greater than 0']);
  });
});
