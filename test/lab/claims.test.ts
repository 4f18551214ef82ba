import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../../lab/claims.js';
import { SCENARIOS, type ScenarioName } from '../../lab/model.js';
import { judge, type Claim } from '../../lab/predicates.js';
import { ROWS, type RowName } from '../../lab/rows.js';
import { EXTRA_METRICS, METRICS, type Metric, type SeedFile, type Value } from '../../lab/seeds.js';

describe('the claims', () => {
  it('have unique ids, and every one is checked (none waits for a scenario)', () => {
    expect(new Set(CLAIMS.map((c) => c.id)).size).toBe(CLAIMS.length);
    for (const c of CLAIMS) {
      expect(c.needs, c.id).toBeUndefined();
      expect(c.scenarios.length, c.id).toBeGreaterThan(0);
    }
  });

  it('read a figure beyond the common ones only where the scenario or the row records it', () => {
    const extra = new Set<string>(EXTRA_METRICS);
    for (const c of CLAIMS) {
      if (!extra.has(c.metric)) continue;
      for (const s of c.scenarios)
        for (const row of [c.strategy, ...(c.relativeTo === undefined ? [] : [c.relativeTo])]) {
          const recorded = [...(SCENARIOS[s].measures ?? []), ...ROWS[row].measures];
          expect(recorded, `${c.id}: ${row} in ${s}`).toContain(c.metric);
        }
    }
  });
});

describe('the claims of the slowdown and the waves, on crafted figures', () => {
  const SEEDS = [1, 2, 3, 4, 5];
  type Figure = Partial<Record<Metric, number>>;
  /** Five seeds of one scenario: per row, the figures of each seed (the rest 0). */
  const file = (scenario: ScenarioName, rows: Partial<Record<RowName, (seed: number) => Figure>>): SeedFile => {
    const runs: Record<string, Record<string, Record<string, Value[]>>> = {};
    for (const seed of SEEDS) {
      runs[String(seed)] = { [scenario]: {} };
      for (const [row, f] of Object.entries(rows)) {
        const figure = f(seed);
        runs[String(seed)]![scenario]![row] = METRICS.map((m) => figure[m] ?? 0);
      }
    }
    return { command: 'test', durationMs: 180_000, seeds: SEEDS, scenarios: [scenario], rows: Object.keys(rows) as RowName[], metrics: METRICS, runs };
  };
  const byId = (id: string): Claim => CLAIMS.find((c) => c.id === id)!;
  const verdict = (id: string, f: SeedFile): string => judge(f, byId(id)).verdict;

  it('a metastable slowdown: passes when real answers stay down after the fault in 2 of 5 seeds, fails in 1 of 5', () => {
    for (const id of ['naiveRetry.slowdown', 'boundedRetry.slowdown']) {
      const row = byId(id).strategy;
      const twoOfFive = file('slowdown', { [row]: (seed: number) => ({ realSuccessAfterFault: seed <= 2 ? 0 : 1 }) });
      const oneOfFive = file('slowdown', { [row]: (seed: number) => ({ realSuccessAfterFault: seed <= 1 ? 0.2 : 0.99 }) });
      expect(verdict(id, twoOfFive), id).toBe('pass');
      expect(verdict(id, oneOfFive), id).toBe('fail');
    }
  });

  it('breakers that stay closed in the slowdown, and standard’s shedding against no protection', () => {
    for (const id of ['standard.slowdown-closed', 'slowCallShield.slowdown']) {
      const row = byId(id).strategy;
      expect(verdict(id, file('slowdown', { [row]: () => ({ breakerOpenInFault: 0 }) })), id).toBe('pass');
      expect(verdict(id, file('slowdown', { [row]: () => ({ breakerOpenInFault: 0.2 }) })), id).toBe('fail');
    }
    const sheds = (standard: number) => file('slowdown', { baseline: () => ({ realSuccessDuringFault: 1 }), standard: () => ({ realSuccessDuringFault: standard }) });
    expect(verdict('standard.slowdown-sheds', sheds(0.8))).toBe('pass');
    expect(verdict('standard.slowdown-sheds', sheds(0.98))).toBe('fail');
  });

  it('the waves: C’s busiest 10 ms against no protection’s, and the load of clients that retry', () => {
    const peaks = (baseline: number, naiveRetry: number, boundedRetry: number) =>
      file('waves', {
        baseline: () => ({ peakLoadPerS: baseline }),
        naiveRetry: () => ({ peakLoadPerS: naiveRetry }),
        boundedRetry: (seed) => ({ peakLoadPerS: boundedRetry + seed }),
      });
    // a wave of 80 requests and 80 clients' second tries in 10 ms: 16,000/s; three tries each: 48,000/s
    expect(verdict('naiveRetry.resynchronizes', peaks(16_000, 48_000, 8_000))).toBe('pass');
    expect(verdict('boundedRetry.jitter', peaks(16_000, 48_000, 8_000))).toBe('pass');
    // jitter that spreads nothing: each retry as busy as the wave
    expect(verdict('naiveRetry.resynchronizes', peaks(16_000, 32_000, 16_000))).toBe('fail');
    expect(verdict('boundedRetry.jitter', peaks(16_000, 32_000, 16_000))).toBe('fail');
    expect(verdict('budgetedRetry.client-retries', file('waves', { budgetedRetry: () => ({ amplification: 3.2 }) }))).toBe('pass');
    expect(verdict('budgetedRetry.client-retries', file('waves', { budgetedRetry: () => ({ amplification: 1.1 }) }))).toBe('fail');
    expect(verdict('standard.ends-client-retries', file('waves', { standard: () => ({ clientAmplification: 1 }) }))).toBe('pass');
    expect(verdict('standard.ends-client-retries', file('waves', { standard: () => ({ clientAmplification: 2.9 }) }))).toBe('fail');
  });
});
