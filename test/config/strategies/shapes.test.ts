import { describe, expect, it } from 'vitest';
import { strategyShapes, WriteBehindConfigSchema } from '../../../config/strategies/shapes.js';
import { toConfigIssues } from '../../../lib/schemas.js';

const issues = (r: { success: boolean; error?: Parameters<typeof toConfigIssues>[0] }) => (r.success ? [] : toConfigIssues(r.error!));

describe('strategyShapes', () => {
  it('fill in each strategy\'s documented defaults', () => {
    expect(strategyShapes.boundedRetry.parse({ strategy: 'boundedRetry' })).toEqual({ strategy: 'boundedRetry', attemptTimeoutMs: 1_000, totalTimeoutMs: 5_000 });
    expect(strategyShapes.standard.parse({ strategy: 'standard', fallback: 'f' })).toEqual({
      strategy: 'standard',
      timeoutMs: 1_000,
      budget: { kind: 'token', ratio: 0.5, minPerSecond: 10, windowMs: 10_000 },
      concurrency: true,
      fallback: 'f',
    });
    expect(strategyShapes.fallbackChain.parse({ strategy: 'fallbackChain' })).toMatchObject({ timeoutMs: 1_000, cacheTtlMs: 1, fallbacks: [] });
    expect(strategyShapes.layeredBreakers.parse({ strategy: 'layeredBreakers', fallback: 'f' })).toMatchObject({ methodKey: 'method', serviceKey: 'service' });
  });

  it('refuse unknown options and the cross-field mistakes, at their paths', () => {
    expect(issues(strategyShapes.failFast.safeParse({ strategy: 'failFast', retries: 2 }))).toEqual([{ path: 'retries', message: 'unknown option' }]);
    expect(issues(strategyShapes.slowCallShield.safeParse({ strategy: 'slowCallShield', timeoutMs: 100, slowCallMs: 100 }))).toEqual([
      { path: 'timeoutMs', message: 'timeoutMs must exceed slowCallMs, or no call could ever be slow' },
    ]);
    expect(issues(strategyShapes.errorCountTrip.safeParse({ strategy: 'errorCountTrip' }))).toEqual([
      { path: 'fallback', message: 'give exactly one of fallback (a handler name) or defaultValue' },
    ]);
    expect(issues(strategyShapes.adaptiveDegrade.safeParse({ strategy: 'adaptiveDegrade', fallback: 'f', bulkhead: { limit: 1 }, rateLimiter: { algorithm: { kind: 'tokenBucket', rate: 1 } } }))).toEqual([
      { path: 'rateLimiter', message: 'give bulkhead or rateLimiter, not both' },
    ]);
  });

  it('WriteBehindConfigSchema names its functions and applies the breaker rules to its breaker', () => {
    expect(WriteBehindConfigSchema.parse({ strategy: 'writeBehind', deliver: 'save' })).toEqual({ strategy: 'writeBehind', deliver: 'save' });
    expect(issues(WriteBehindConfigSchema.safeParse({ strategy: 'writeBehind', deliver: '' }))).toEqual([{ path: 'deliver', message: 'expected a handler name' }]);
    const bad = issues(WriteBehindConfigSchema.safeParse({ strategy: 'writeBehind', deliver: 'save', breaker: { windowMs: 1_000, buckets: 3 } }));
    expect(bad.map((i) => i.path)).toEqual(['breaker.buckets']);
  });
});
