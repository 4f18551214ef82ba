import { describe, expect, it } from 'vitest';
import { ConfigError, constant, exponential, fromConfig, PipelineConfigSchema, strategies, tokenBudget, type RetryBudget } from '../../../lib/index.js';
import { TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

/** Runs a call that always fails and returns the clock times (from START) of its attempts. */
async function attempts(p: { execute: (op: () => Promise<never>, o?: { key: string }) => Promise<unknown> }, clock: TestClock): Promise<number[]> {
  const at: number[] = [];
  const r = p
    .execute(
      () => {
        at.push(clock.now() - START);
        return Promise.reject(new Error('down'));
      },
      { key: 'k' },
    )
    .catch(() => undefined);
  await clock.advance(1_000);
  await r;
  return at;
}

describe('strategies (the code form)', () => {
  const withRetry = {
    boundedRetry: (o: object) => strategies.boundedRetry(o),
    budgetedRetry: (o: object) => strategies.budgetedRetry(o),
    standard: (o: object) => strategies.standard({ ...o, fallback: () => null }),
    guardedRetry: (o: object) => strategies.guardedRetry(o),
    idempotentRetry: (o: object) => strategies.idempotentRetry(o),
  };

  it.each(Object.entries(withRetry))('%s takes a backoff object, and a backoff function, as retry() does', async (_, make) => {
    let clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 3, backoff: constant(30) }), clock)).toEqual([0, 30, 60]);
    clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 3, backoff: exponential({ initial: 10, jitter: 'none' }) }), clock)).toEqual([0, 10, 30]);
    clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 3, backoff: (retry: number) => retry * 7 }), clock)).toEqual([0, 7, 21]);
    // the data form still works
    clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 2, backoff: { kind: 'constant', ms: 5 } }), clock)).toEqual([0, 5]);
  });

  it('budgetedRetry uses the budget object itself: one budget shared by two pipelines is one budget', async () => {
    const clock = new TestClock(START);
    // one retry per 10 s between them, whatever the traffic
    const shared = tokenBudget({ ratio: 0, minPerSecond: 0.1, windowMs: 10_000 });
    const a = strategies.budgetedRetry({ clock, budget: shared, backoff: constant(0) });
    const b = strategies.budgetedRetry({ clock, budget: shared, backoff: constant(0) });
    expect(await attempts(a, clock)).toEqual([0, 0]);
    const later = clock.now() - START;
    expect(await attempts(b, clock)).toEqual([later]);

    const seen: string[] = [];
    const spy: RetryBudget = {
      onCall: () => void seen.push('call'),
      tryRetry: () => {
        seen.push('retry?');
        return false;
      },
    };
    await attempts(strategies.budgetedRetry({ clock, budget: spy }), clock);
    expect(seen).toEqual(['call', 'retry?']);
  });

  it('a backoff or budget object given to a strategy without that option is an unknown option', () => {
    expect(() => strategies.failFast({ backoff: constant(10) } as never)).toThrow(/backoff: unknown option/);
    expect(() => strategies.standard({ budget: tokenBudget(), fallback: () => null } as never)).toThrow(/budget: unknown option/);
    expect(() => strategies.standard({ backoff: { kind: 'constant', ms: -1 }, fallback: () => null })).toThrow(ConfigError);
  });

  it('the config form keeps data only', () => {
    const config = { strategy: 'standard', backoff: constant(10), fallback: 'none' };
    expect(PipelineConfigSchema.safeParse(config).success).toBe(false);
    expect(() => fromConfig(config, { none: () => null })).toThrow(/backoff/);
    expect(() => fromConfig({ strategy: 'budgetedRetry', budget: tokenBudget() })).toThrow(/budget/);
  });
});
