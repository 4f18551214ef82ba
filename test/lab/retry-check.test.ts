import { describe, expect, it } from 'vitest';
import { RETRY_ROWS, retryBound, retryCheck, retryCheckText } from '../../lab/retry-check.js';
import { METRICS, type SeedFile, type Value } from '../../lab/seeds.js';

// a vector of METRICS with amplification and p99Ms set
const vector = (amplification: number, p99Ms: number): Value[] =>
  METRICS.slice(0, 11).map((m) => (m === 'amplification' ? amplification : m === 'p99Ms' ? p99Ms : m === 'recoveryS' ? 0 : 1));

const file = (cells: Record<string, [number, number][]>): SeedFile => {
  const runs: Record<string, Record<string, Record<string, Value[]>>> = {};
  for (const [row, perSeed] of Object.entries(cells))
    perSeed.forEach(([amp, p99], i) => {
      ((runs[String(i + 1)] ??= {}).hardOutage ??= {})[row] = vector(amp, p99);
    });
  return { command: 'test', durationMs: 180_000, seeds: [1, 2, 3], scenarios: ['hardOutage'], rows: ['naiveRetry', 'budgetedRetry'], metrics: METRICS, runs } as SeedFile;
};

describe('retryBound', () => {
  it('is 1 + ratio + floor / offered load with a budget', () => {
    expect(retryBound({ maxAttempts: 3, budget: { ratio: 0.1, minPerSecond: 10 } }, 300, 200)).toBeCloseTo(1.15, 12);
    expect(retryBound({ maxAttempts: 3, budget: { ratio: 0.5, minPerSecond: 0 } }, 300, 200)).toBeCloseTo(1.5, 12);
  });

  it('is 1 + the per-call budget without one: the tries, until the p99 makes a retry cost more than the window allows', () => {
    // 0.1 × 60 s / (2 × p99): 300 ms → 10 retries, capped at 2; 2,000 ms → 1; 4,000 ms → 0
    expect(retryBound({ maxAttempts: 3 }, 300)).toBe(3);
    expect(retryBound({ maxAttempts: 3 }, 2_000)).toBe(2);
    expect(retryBound({ maxAttempts: 3 }, 4_000)).toBe(1);
  });
});

describe('retryCheck', () => {
  it('counts the seeds within the bound (to the figures’ rounding) and the median slack', () => {
    const lines = retryCheck(
      file({
        budgetedRetry: [
          [1.1, 100],
          [1.1505, 100],
          [1.2, 100],
        ],
        naiveRetry: [
          [3, 300],
          [2.5, 300],
          [2, 2_000],
        ],
      }),
      { naiveRetry: { maxAttempts: 3 }, budgetedRetry: { maxAttempts: 3, budget: { ratio: 0.1, minPerSecond: 10 } } },
    );
    expect(lines).toHaveLength(2);
    const [naive, budgeted] = lines;
    expect(budgeted).toMatchObject({ row: 'budgetedRetry', scenario: 'hardOutage', formula: 'aggregate', holds: 2, seeds: 3, measuredMedian: 1.1505, measuredMax: 1.2 });
    expect(budgeted!.bound).toBeCloseTo(1.15, 12);
    expect(budgeted!.slack).toBeCloseTo(-0.0005, 12);
    // per-call bounds 3, 3, 2 (the last seed's p99 of 2 s): slacks 0, 0.5, 0
    expect(naive).toMatchObject({ formula: 'perCall', holds: 3, bound: 3, slack: 0, measuredMax: 3 });
    const text = retryCheckText(lines);
    expect(text).toContain('holds in 2 of 3 runs');
    expect(text).toContain('holds in 3 of 3 runs');
    expect(text).toContain('budgetedRetry in hardOutage, bound 1.15, measured up to 1.200');
  });
});

describe('RETRY_ROWS', () => {
  it("takes the budgets of budgetedRetry and standard from their strategies' defaults (docs/strategies.md: 10 % and 50 % of the calls, plus 10 a second)", () => {
    expect(RETRY_ROWS.budgetedRetry?.budget).toEqual({ ratio: 0.1, minPerSecond: 10 });
    expect(RETRY_ROWS.standard?.budget).toEqual({ ratio: 0.5, minPerSecond: 10 });
    expect(RETRY_ROWS.naiveRetry?.budget).toBeUndefined();
  });
});
