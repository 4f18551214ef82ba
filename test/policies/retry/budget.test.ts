import { describe, expect, it } from 'vitest';
import { ConfigError, constant, retry, sloBudget, tokenBudget, type RetryBudget } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

/** Runs `n` calls against a dead dependency, `perSecond` of them a second, and counts the dependency's calls. */
async function outage(clock: TestClock, budget: RetryBudget | undefined, n: number, perSecond: number): Promise<number> {
  let calls = 0;
  const r = retry({ maxAttempts: 3, backoff: constant(0), clock, ...(budget ? { budget } : {}) });
  for (let i = 0; i < n; i++) {
    await r
      .execute(() => {
        calls++;
        throw new Error('down');
      })
      .catch(() => undefined);
    await clock.advance(1_000 / perSecond);
  }
  return calls;
}

describe('tokenBudget', () => {
  it('under a total outage keeps dependency calls near 1.1x first attempts, where plain retry(3) makes 3x', async () => {
    const plain = await outage(new TestClock(START), undefined, 2_000, 100);
    expect(plain).toBe(6_000);
    const budgeted = await outage(new TestClock(START), tokenBudget({ ratio: 0.1, minPerSecond: 0 }), 2_000, 100);
    expect(budgeted).toBeGreaterThan(2_000);
    expect(budgeted).toBeLessThanOrEqual(2_000 * 1.1);
  });

  it('adds the floor: minPerSecond retries per second of window whatever the traffic', async () => {
    // 10 calls over 10 s, floor 1/s over a 10 s window = 10 retries; ratio 0 adds none
    const calls = await outage(new TestClock(START), tokenBudget({ ratio: 0, minPerSecond: 1, windowMs: 10_000 }), 10, 1);
    expect(calls).toBe(10 + 10);
  });

  it('forgets calls and retries older than the window', () => {
    const b = tokenBudget({ ratio: 0.5, minPerSecond: 0, windowMs: 1_000 });
    for (let i = 0; i < 4; i++) b.onCall(START);
    expect(b.tryRetry(START, 0)).toBe(true);
    expect(b.tryRetry(START, 0)).toBe(true);
    expect(b.tryRetry(START, 0)).toBe(false);
    // a window later the old calls no longer fund retries
    expect(b.tryRetry(START + 1_000, 0)).toBe(false);
    b.onCall(START + 1_000);
    b.onCall(START + 1_000);
    expect(b.tryRetry(START + 1_000, 0)).toBe(true);
  });

  it('rejects bad options', () => {
    expect(() => tokenBudget({ ratio: 1.5 })).toThrow(ConfigError);
    expect(() => tokenBudget({ windowMs: 0 })).toThrow(/windowMs/);
    expect(() => tokenBudget({ minPerSecond: -1 })).toThrow(/minPerSecond/);
    expect(() => tokenBudget({ rate: 1 } as never)).toThrow(/rate: unknown option/);
  });
});

describe('sloBudget', () => {
  it('allows retries by the seed formula over the live p99', async () => {
    const clock = new TestClock(START);
    const budget = sloBudget({ sloWindowMs: 60_000, fraction: 0.1, maxRetries: 3 });
    // no samples yet: p99 0 → cost floor 100 ms → 60 → capped at 3
    expect(budget.allowed(clock.now())).toBe(3);
    const r = retry({ maxAttempts: 5, backoff: constant(0), clock, budget });
    // 100 attempts of 1,500 ms: p99 within 10 % above 1,500 → floor(6000 / ~3000..3300) = 1
    for (let i = 0; i < 100; i++) {
      const p = r.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve(1), 1_500)));
      await clock.advance(1_500);
      await p;
    }
    expect(budget.allowed(clock.now())).toBe(1);
    let calls = 0;
    await r
      .execute(() => {
        calls++;
        throw new Error('x');
      })
      .catch(() => undefined);
    expect(calls).toBe(2); // the first attempt and one retry
  });

  it('rejects bad options', () => {
    expect(() => sloBudget({ fraction: -0.1 })).toThrow(/fraction/);
    expect(() => sloBudget({ maxRetries: 1.5 })).toThrow(/maxRetries/);
  });
});
