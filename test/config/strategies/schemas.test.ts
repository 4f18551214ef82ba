import { describe, expect, it } from 'vitest';
import { strategySchemas, StrategyConfigSchema } from '../../../config/strategies/schemas.js';

const issues = (value: unknown) => {
  const r = StrategyConfigSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('StrategyConfigSchema', () => {
  it('accepts a strategy with its defaults, and fills them in', () => {
    const r = StrategyConfigSchema.safeParse({ strategy: 'slowCallShield', fallback: 'f' });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ strategy: 'slowCallShield', timeoutMs: 2_000, slowCallMs: 1_000, cacheTtlMs: 1, fallback: 'f' });
  });

  it('refuses an unknown strategy and an unknown option', () => {
    expect(issues({ strategy: 'warpDrive' }).map((i) => i.path)).toEqual(['strategy']);
    expect(issues({ strategy: 'failFast', extra: 1 }).length).toBeGreaterThan(0);
  });

  it('checks the entries a strategy is written out into, and reports them under the strategy option', () => {
    // a breaker threshold above 1 is a ratio the written-out breaker refuses
    const found = issues({ strategy: 'slowCallShield', timeoutMs: 2_000, slowCallMs: 200, breaker: { threshold: 2 } });
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((i) => i.path.startsWith('breaker'))).toBe(true);
    // the same options with a ratio in range pass
    expect(issues({ strategy: 'slowCallShield', timeoutMs: 2_000, slowCallMs: 200, breaker: { threshold: 0.5 } })).toEqual([]);
  });

  it('has a schema for every pipeline strategy, and none for the writer', () => {
    expect(Object.keys(strategySchemas)).toEqual(expect.arrayContaining(['failFast', 'standard', 'slowCallShield', 'layeredBreakers', 'adaptiveDegrade']));
    for (const name of Object.keys(strategySchemas).filter((n) => n !== 'writeBehind')) {
      expect([name, StrategyConfigSchema.safeParse({ strategy: name }).error?.issues.some((i) => i.path[0] === 'strategy') ?? false]).toEqual([name, false]);
    }
  });
});
