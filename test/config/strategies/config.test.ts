import { describe, expect, it } from 'vitest';
import { ConfigError, strategies } from '../../../api/index.js';
import { fromConfig, PipelineConfigSchema } from '../../../api/config.js';
import { TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

describe('strategies as config', () => {
  it('fromConfig({ strategy }) builds the same chain as strategies.<name>()', () => {
    const a = fromConfig({ strategy: 'standard', timeoutMs: 300, fallback: 'guest' }, { guest: () => null });
    const b = strategies.standard({ timeoutMs: 300, fallback: () => null });
    expect(a.pipeline.policies.map((p) => p.constructor.name)).toEqual(b.pipeline.policies.map((p) => p.constructor.name));
    expect(a.pipeline.policies.map((p) => p.constructor.name)).toEqual(['TimeoutPolicy', 'AdaptiveLimiterPolicy', 'RetryPolicy', 'AdaptiveBreakerPolicy', 'FallbackPolicy']);
  });

  it('validates strategy options with paths, all at once', () => {
    try {
      fromConfig({ strategy: 'slowCallShield', timeoutMs: 100, slowCallMs: 200, breaker: { threshold: 2 }, extra: 1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toEqual(expect.arrayContaining(['extra']));
    }
    // the written-out entries are checked too, and reported under the strategy option
    expect(() => fromConfig({ strategy: 'slowCallShield', timeoutMs: 2_000, slowCallMs: 200, breaker: { threshold: 2 } })).toThrow(/breaker\.threshold/);
    expect(() => fromConfig({ strategy: 'slowCallShield', timeoutMs: 100, slowCallMs: 200 })).toThrow(/timeoutMs must exceed slowCallMs/);
    expect(() => fromConfig({ strategy: 'standard' })).toThrow(/fallback/);
    expect(() => fromConfig({ strategy: 'warpDrive' })).toThrow(ConfigError);
    expect(() => fromConfig({ strategy: 'standard', fallback: 'missing' }, {})).toThrow(/no handler named "missing"/);
    expect(() => strategies.errorCountTrip({ clock: new TestClock(START) } as never)).toThrow(/exactly one of fallback/);
  });

  it('every strategy has a data form the schema accepts', () => {
    const docs = [
      { strategy: 'failFast' },
      { strategy: 'boundedRetry', maxAttempts: 4 },
      { strategy: 'budgetedRetry', budget: { kind: 'slo', maxRetries: 2 } },
      { strategy: 'standard', fallback: 'f' },
      { strategy: 'guardedRetry', breaker: { threshold: 0.3 } },
      { strategy: 'slowCallShield', fallback: 'f' },
      { strategy: 'errorCountTrip', defaultValue: [] },
      { strategy: 'idempotentRetry', idempotent: { leaseMs: 5_000 } },
      { strategy: 'fallbackChain', fallbacks: ['replica'], defaultValue: null },
      { strategy: 'layeredBreakers', fallback: 'f' },
      { strategy: 'adaptiveDegrade', rateLimiter: { algorithm: { kind: 'tokenBucket', rate: 100, burst: 10 } }, fallback: 'f' },
    ];
    for (const d of docs) expect(PipelineConfigSchema.safeParse(d).success, JSON.stringify(d)).toBe(true);
  });

  it("hot reload changes a strategy's options in place; another strategy rebuilds the pipeline", async () => {
    const clock = new TestClock(START);
    const { BehaviorSubject } = await import('rxjs');
    const configs = new BehaviorSubject<unknown>({ strategy: 'failFast', timeoutMs: 100 });
    const p = fromConfig(configs, {}, { clock });
    configs.next({ strategy: 'failFast', timeoutMs: 20 });
    const r = p.execute(() => new Promise(() => {})).catch((e: Error) => `${e.name}@${clock.now() - START}`);
    await clock.advance(20);
    await expect(r).resolves.toBe('TimeoutError@20');
    const applied: boolean[] = [];
    p.events$.subscribe((e) => e.type === 'configApplied' && applied.push(e.rebuilt));
    configs.next({ strategy: 'failFast', timeoutMs: 30 });
    configs.next({ strategy: 'boundedRetry' });
    expect(applied).toEqual([false, true]);
    expect(p.pipeline.policies.map((x) => x.constructor.name)).toEqual(p.config.map(() => expect.any(String)));
    expect(p.config.map((e) => e.type)).toContain('retry');
  });
});
