import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../lib/testing.js';
import {
  allowedDowntime,
  availabilityNines,
  combinedAvailability,
  combinedAvailabilityAsPublished,
  DYNAMIC_RISK_THRESHOLD,
  dynamicRiskScore,
  dynamicTrips,
  redundantAvailability,
  rtoMaxAsPublished,
  DEGRADE_THRESHOLDS,
  degradeDecision,
  DYNAMIC_THRESHOLD_WEIGHTS,
  dynamicThreshold,
  RTO_BASE_DELAY_MS,
  rtoMax,
  shouldDegrade,
  sloRetryBudget,
  YEAR_MS,
} from '../../lib/sla.js';

describe('combinedAvailabilityAsPublished (and the deprecated object form of combinedAvailability)', () => {
  it('is 1 − Π((1 − SLA_i) × α_i)', () => {
    expect(combinedAvailabilityAsPublished([{ availability: 0.999, overlap: 0.32 }, { availability: 0.999, overlap: 0.32 }])).toBeCloseTo(1 - 1.024e-7, 12);
    // α works backwards: α = 0 gives 100 % whatever the part; one 99 % part with α 0.5 gives 99.5 %
    expect(combinedAvailabilityAsPublished([{ availability: 0.5, overlap: 0 }])).toBe(1);
    expect(combinedAvailabilityAsPublished([{ availability: 0.99, overlap: 0.5 }])).toBeCloseTo(0.995, 12);
    // (0.001 × 0.32)² = 1.024e-7
    expect(combinedAvailability([{ availability: 0.999, overlap: 0.32 }, { availability: 0.999, overlap: 0.32 }])).toBeCloseTo(1 - 1.024e-7, 12);
    // one fully-shared part is itself
    expect(combinedAvailability([{ availability: 0.99, overlap: 1 }])).toBeCloseTo(0.99, 12);
    // (0.01 × 0.08) × (0.001 × 1) = 8e-7
    expect(combinedAvailability([{ availability: 0.99, overlap: 0.08 }, { availability: 0.999, overlap: 1 }])).toBeCloseTo(1 - 8e-7, 12);
  });
  it('rejects values outside [0, 1] and empty input', () => {
    expect(() => combinedAvailability([])).toThrow(RangeError);
    expect(() => combinedAvailability([{ availability: 1.2, overlap: 1 }])).toThrow(/availability/);
    expect(() => combinedAvailability([{ availability: 0.9, overlap: -1 }])).toThrow(/overlap/);
  });
});

describe('rtoMaxAsPublished (and the deprecated form of rtoMax)', () => {
  it('is baseDelay + errorLatency / (1 − (1 − r)^probes)', () => {
    expect(rtoMaxAsPublished({ state: 'open', errorLatencyMs: 2_000, recoveryRate: 0.5 })).toBeCloseTo(6_000 + 2_000 / 0.875, 9);
    expect(rtoMaxAsPublished({ state: 'half-open', errorLatencyMs: 0, recoveryRate: 0 })).toBe(Infinity);
    // 6000 + 2000 / (1 − 0.5³) = 6000 + 2000 / 0.875
    expect(rtoMax({ state: 'open', errorLatencyMs: 2_000, recoveryRate: 0.5 })).toBeCloseTo(6_000 + 2_000 / 0.875, 9);
    // half-open 1000 + 1200 / (1 − 0.9³) = 1000 + 1200 / 0.271
    expect(rtoMax({ state: 'half-open', errorLatencyMs: 1_200, recoveryRate: 0.1 })).toBeCloseTo(1_000 + 1_200 / 0.271, 9);
    // closed: no base delay; r = 1 → denominator 1
    expect(rtoMax({ state: 'closed', errorLatencyMs: 500, recoveryRate: 1 })).toBe(500);
    // probes and base delays can be given
    expect(rtoMax({ state: 'open', errorLatencyMs: 100, recoveryRate: 0.5, probes: 1, baseDelayMs: { open: 10 } })).toBe(10 + 100 / 0.5);
  });
  it('is Infinity when nothing recovers', () => {
    expect(rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0 })).toBe(Infinity);
    expect(rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: -0.1 })).toBe(Infinity);
  });
});

describe('sloRetryBudget', () => {
  it('follows the formula, not the seed table', () => {
    // 0.1 × 60000 = 6000 ms of budget; cost = max(100, 2·p99)
    expect(sloRetryBudget({ p99Ms: 200 })).toBe(3); // 6000/400 = 15 → capped at 3 (the seed's table says 1)
    expect(sloRetryBudget({ p99Ms: 600 })).toBe(3); // 6000/1200 = 5 → 3 (the seed's table says 0)
    expect(sloRetryBudget({ p99Ms: 1_000 })).toBe(3); // 6000/2000 = 3
    expect(sloRetryBudget({ p99Ms: 1_001 })).toBe(2); // first below 3
    expect(sloRetryBudget({ p99Ms: 3_000 })).toBe(1); // 6000/6000 = 1
    expect(sloRetryBudget({ p99Ms: 3_001 })).toBe(0); // 0 above 3000
    expect(sloRetryBudget({ p99Ms: 10 })).toBe(3); // cost floor 100 ms → 60 → 3
    expect(sloRetryBudget({ p99Ms: 250, sloWindowMs: 10_000, fraction: 0.1, maxRetries: 5 })).toBe(2); // 1000/500
  });
});

describe('dynamicThreshold', () => {
  it('weights load 0.3, errors 0.5, probe distrust 0.2', () => {
    expect(dynamicThreshold({ rps: 500, baseRps: 1_000, errorRate: 0.2, probeSuccessRate: 1 })).toBeCloseTo(0.15 + 0.1, 12);
    expect(dynamicThreshold({ rps: 5_000, baseRps: 1_000, errorRate: 0, probeSuccessRate: 0 })).toBeCloseTo(0.3 + 0.2, 12);
    expect(dynamicThreshold({ rps: 100, baseRps: 100, errorRate: 1, probeSuccessRate: 1 }, { rps: 0.5, error: 0.25, probe: 0.25 })).toBeCloseTo(0.75, 12);
  });

  it('takes the deprecated positional form, with the breaker option’s weight keys, to the same figure', () => {
    // 0.3·0.5 + 0.5·0.2 + 0.2·0.5
    expect(dynamicThreshold({ rps: 0.3, errorRate: 0.5, probe: 0.2 }, 500, 1_000, 0.2, 0.5)).toBeCloseTo(0.35, 12);
    // Load saturates at 1; different weights per term.
    expect(dynamicThreshold({ rps: 0.1, errorRate: 0.2, probe: 0.4 }, 5_000, 1_000, 0.5, 0)).toBeCloseTo(0.1 + 0.1 + 0.4, 12);
    for (const [rps, baseRps, errorRate, psr] of [
      [0, 10, 0, 1],
      [7, 10, 0.3, 0.6],
      [30, 10, 1, 0],
    ] as const) {
      expect(dynamicThreshold({ rps: 0.3, errorRate: 0.5, probe: 0.2 }, rps, baseRps, errorRate, psr)).toBe(
        dynamicThreshold({ rps, baseRps, errorRate, probeSuccessRate: psr }, { rps: 0.3, error: 0.5, probe: 0.2 }),
      );
    }
  });

  it('checks baseRps in the object form only', () => {
    expect(() => dynamicThreshold({ rps: 1, baseRps: 0, errorRate: 0, probeSuccessRate: 1 })).toThrow(RangeError);
    expect(dynamicThreshold({ rps: 0.3, errorRate: 0.5, probe: 0.2 }, 1, 0, 0, 1)).toBeCloseTo(0.3, 12);
  });

  it('is the same function the circuit breaker’s module exports', async () => {
    const fromBreaker = await import('../../policies/circuit-breaker/trips.js');
    expect(fromBreaker.dynamicThreshold).toBe(dynamicThreshold);
  });
});

describe('the degradation decision tree', () => {
  const t = { qpsHigh: 5_000, qpsMid: 2_000, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 };
  it.each([
    // high QPS: CPU or health
    [{ qps: 6_000, cpu: 0.9, healthyRatio: 1 }, true, 'shedNonCore'],
    [{ qps: 6_000, cpu: 0.5, healthyRatio: 0.8 }, true, 'serveFromCache'],
    [{ qps: 6_000, cpu: 0.85, healthyRatio: 0.9 }, false, 'none'],
    // medium QPS: only critical CPU; a sick downstream alone does not degrade
    [{ qps: 3_000, cpu: 0.95, healthyRatio: 1 }, true, 'limitAndSample'],
    [{ qps: 3_000, cpu: 0.9, healthyRatio: 0.1 }, false, 'none'],
    [{ qps: 3_000, cpu: 0.92, healthyRatio: 1 }, false, 'none'],
    // low QPS: never
    [{ qps: 2_000, cpu: 1, healthyRatio: 0 }, false, 'none'],
  ] as const)('%j → %s (%s)', (signals, degrade, action) => {
    expect(degradeDecision(signals, t)).toEqual({ degrade, action });
    expect(shouldDegrade(signals, t)).toBe(degrade);
  });
});

describe('availability conversions', () => {
  it('nines and downtime', () => {
    expect(availabilityNines(0.999)).toBeCloseTo(3, 9);
    expect(availabilityNines(0.9999)).toBeCloseTo(4, 9);
    expect(availabilityNines(1)).toBe(Infinity);
    // 99.99 % of a 365.25-day year: 0.0001 × 525,960 min = 52.596 min
    expect(allowedDowntime(0.9999, YEAR_MS) / 60_000).toBeCloseTo(52.596, 3);
    expect(allowedDowntime(0.999, 30 * 86_400_000) / 60_000).toBeCloseTo(43.2, 9);
  });
});

describe('sla: combinedAvailability edges', () => {
  it('accepts the ends of [0, 1] for availability and overlap', () => {
    // 1 − (1 − 0)·1 = 0; 1 − (1 − 1)·1 = 1; 1 − (1 − 0)·0 = 1
    expect(combinedAvailability([{ availability: 0, overlap: 1 }])).toBe(0);
    expect(combinedAvailability([{ availability: 1, overlap: 1 }])).toBe(1);
    expect(combinedAvailability([{ availability: 0, overlap: 0 }])).toBe(1);
    // three parts: (0.5·0.5)·(0.5·1)·(0.5·0.5) = 0.03125
    expect(
      combinedAvailability([
        { availability: 0.5, overlap: 0.5 },
        { availability: 0.5, overlap: 1 },
        { availability: 0.5, overlap: 0.5 },
      ]),
    ).toBe(1 - 0.03125);
  });

  it('names the part and the value it rejects', () => {
    expect(() => combinedAvailability([])).toThrow('combinedAvailability needs at least one part');
    expect(() => combinedAvailability([{ availability: 0.9, overlap: 1 }, { availability: 0.9, overlap: 1.5 }])).toThrow(
      new RangeError('parts[1].overlap must lie in [0, 1], got 1.5'),
    );
    expect(() => combinedAvailability([{ availability: -0.01, overlap: 1 }])).toThrow(new RangeError('parts[0].availability must lie in [0, 1], got -0.01'));
    expect(() => combinedAvailability([{ availability: Number.NaN, overlap: 1 }])).toThrow(RangeError);
    expect(() => combinedAvailability([{ availability: 0.5, overlap: Number.NaN }])).toThrow(RangeError);
  });
});

describe('sla: rtoMax edges', () => {
  it('base delays are open 6000, half-open 1000, closed 0', () => {
    expect(RTO_BASE_DELAY_MS).toEqual({ open: 6_000, 'half-open': 1_000, closed: 0 });
    // errorLatency 0 leaves only the base delay
    expect(rtoMax({ state: 'open', errorLatencyMs: 0, recoveryRate: 0.5 })).toBe(6_000);
    expect(rtoMax({ state: 'half-open', errorLatencyMs: 0, recoveryRate: 0.5 })).toBe(1_000);
  });

  it('a partial baseDelayMs falls back per state, and a given 0 is kept', () => {
    // half-open is not given: its default 1000 applies; r = 1 → denominator 1
    expect(rtoMax({ state: 'half-open', errorLatencyMs: 100, recoveryRate: 1, baseDelayMs: { open: 10 } })).toBe(1_100);
    // an explicit 0 is not replaced by the default 6000
    expect(rtoMax({ state: 'open', errorLatencyMs: 100, recoveryRate: 1, baseDelayMs: { open: 0 } })).toBe(100);
  });

  it('a recovery rate over 1 counts as 1; probes shape the denominator', () => {
    expect(rtoMax({ state: 'closed', errorLatencyMs: 500, recoveryRate: 1.5 })).toBe(500);
    // 1 − 0.5² = 0.75 → 300 / 0.75 = 400
    expect(rtoMax({ state: 'closed', errorLatencyMs: 300, recoveryRate: 0.5, probes: 2 })).toBe(400);
    // default probes 3: 1 − 0.5³ = 0.875 → 350 / 0.875 = 400
    expect(rtoMax({ state: 'closed', errorLatencyMs: 350, recoveryRate: 0.5 })).toBe(400);
  });

  it('rejects bad inputs with their values, before the Infinity answer', () => {
    expect(() => rtoMax({ state: 'open', errorLatencyMs: -1, recoveryRate: 0.5 })).toThrow(new RangeError('errorLatencyMs must be >= 0, got -1'));
    expect(() => rtoMax({ state: 'open', errorLatencyMs: -1, recoveryRate: 0 })).toThrow(RangeError);
    expect(() => rtoMax({ state: 'open', errorLatencyMs: Number.NaN, recoveryRate: 0.5 })).toThrow(RangeError);
    expect(() => rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0.5, probes: 0 })).toThrow(new RangeError('probes must be an integer >= 1, got 0'));
    expect(() => rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0, probes: 0 })).toThrow(RangeError);
    expect(() => rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0.5, probes: 1.5 })).toThrow(/probes/);
  });
});

describe('sla: sloRetryBudget edges', () => {
  it('each default on its own: window 60000, fraction 0.1, cap 3', () => {
    // cost = max(100, 2·500) = 1000
    expect(sloRetryBudget({ p99Ms: 500, maxRetries: 100 })).toBe(6); // 0.1·60000 / 1000
    expect(sloRetryBudget({ p99Ms: 500, fraction: 0.5, maxRetries: 100 })).toBe(30); // 0.5·60000 / 1000
    expect(sloRetryBudget({ p99Ms: 500, sloWindowMs: 10_000, maxRetries: 100 })).toBe(1); // 0.1·10000 / 1000
    expect(sloRetryBudget({ p99Ms: 500 })).toBe(3); // 6 capped at 3
    expect(sloRetryBudget({ p99Ms: 700, maxRetries: 100 })).toBe(4); // floor(6000 / 1400 = 4.28)
  });

  it('the 100 ms cost floor and twice the p99 above it', () => {
    // 1 × 1000 ms of budget: p99 40 → cost max(100, 80) = 100 → 10; p99 60 → 120 → floor(8.33) = 8
    expect(sloRetryBudget({ p99Ms: 40, sloWindowMs: 1_000, fraction: 1, maxRetries: 100 })).toBe(10);
    expect(sloRetryBudget({ p99Ms: 60, sloWindowMs: 1_000, fraction: 1, maxRetries: 100 })).toBe(8);
    expect(sloRetryBudget({ p99Ms: 0, sloWindowMs: 1_000, fraction: 1, maxRetries: 100 })).toBe(10);
  });

  it('never negative, and rejects a negative p99 naming it', () => {
    expect(sloRetryBudget({ p99Ms: 100, maxRetries: 0 })).toBe(0);
    expect(sloRetryBudget({ p99Ms: 100, maxRetries: -2 })).toBe(0);
    expect(sloRetryBudget({ p99Ms: 100, fraction: 0 })).toBe(0);
    expect(() => sloRetryBudget({ p99Ms: -1 })).toThrow(new RangeError('p99Ms must be >= 0, got -1'));
    expect(() => sloRetryBudget({ p99Ms: Number.NaN })).toThrow(RangeError);
  });
});

describe('sla: dynamicThreshold edges', () => {
  it('each weight multiplies its own term', () => {
    expect(DYNAMIC_THRESHOLD_WEIGHTS).toEqual({ rps: 0.3, error: 0.5, probe: 0.2 });
    // load 0.5, error 0.5, distrust 0.5 with weights 0.1, 0.2, 0.4: 0.05 + 0.1 + 0.2
    expect(dynamicThreshold({ rps: 50, baseRps: 100, errorRate: 0.5, probeSuccessRate: 0.5 }, { rps: 0.1, error: 0.2, probe: 0.4 })).toBeCloseTo(0.35, 12);
    // only the probe term: 0.2 × (1 − 0.25) = 0.15
    expect(dynamicThreshold({ rps: 0, baseRps: 100, errorRate: 0, probeSuccessRate: 0.25 })).toBeCloseTo(0.15, 12);
    // load exactly at base: 0.3 × 1
    expect(dynamicThreshold({ rps: 100, baseRps: 100, errorRate: 0, probeSuccessRate: 1 })).toBeCloseTo(0.3, 12);
  });

  it('a negative rps counts as no load; baseRps must be > 0', () => {
    expect(dynamicThreshold({ rps: -500, baseRps: 100, errorRate: 0, probeSuccessRate: 1 })).toBe(0);
    expect(() => dynamicThreshold({ rps: 1, baseRps: 0, errorRate: 0, probeSuccessRate: 1 })).toThrow(new RangeError('baseRps must be > 0, got 0'));
  });
});

describe('sla: the decision tree exactly at its thresholds', () => {
  it('the seed thresholds are the defaults', () => {
    expect(DEGRADE_THRESHOLDS).toEqual({ qpsHigh: 5_000, qpsMid: 2_000, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 });
  });

  it.each([
    // qps exactly qpsHigh is medium traffic: hot CPU under cpuCritical and a sick downstream do not degrade
    [{ qps: 5_000, cpu: 0.9, healthyRatio: 0.5 }, 'none'],
    [{ qps: 5_000, cpu: 0.95, healthyRatio: 1 }, 'limitAndSample'],
    [{ qps: 5_001, cpu: 0.86, healthyRatio: 1 }, 'shedNonCore'],
    [{ qps: 5_001, cpu: 0.85, healthyRatio: 0.9 }, 'none'],
    [{ qps: 5_001, cpu: 0.5, healthyRatio: 0.89 }, 'serveFromCache'],
    // CPU is asked first
    [{ qps: 5_001, cpu: 0.9, healthyRatio: 0.1 }, 'shedNonCore'],
    // qps just over qpsMid with critical CPU
    [{ qps: 2_001, cpu: 0.93, healthyRatio: 1 }, 'limitAndSample'],
    [{ qps: 2_000, cpu: 0.93, healthyRatio: 1 }, 'none'],
  ] as const)('default thresholds: %j → %s', (signals, action) => {
    expect(degradeDecision(signals)).toEqual({ degrade: action !== 'none', action });
    expect(shouldDegrade(signals)).toBe(action !== 'none');
  });
});

describe('sla: conversions at the ends', () => {
  it('nines of 0 and 0.9995; downtime of 1 and 0; the default period is a 365.25-day year', () => {
    expect(availabilityNines(0) + 0).toBe(0);
    expect(availabilityNines(0.9995)).toBeCloseTo(3.30103, 5);
    expect(() => availabilityNines(1.5)).toThrow(new RangeError('availability must lie in [0, 1], got 1.5'));
    expect(YEAR_MS).toBe(31_557_600_000);
    expect(allowedDowntime(1, 1_000)).toBe(0);
    expect(allowedDowntime(0, 1_000)).toBe(1_000);
    expect(allowedDowntime(0.5)).toBe(15_778_800_000);
    expect(() => allowedDowntime(0.5, 0)).toThrow(new RangeError('periodMs must be > 0, got 0'));
    expect(() => allowedDowntime(-0.5, 10)).toThrow(/availability/);
  });
});

describe('combinedAvailability: a chain in series with the β-factor', () => {
  it('β = 0 is the product of the parts, β = 1 the weakest part', () => {
    expect(combinedAvailability([0.99, 0.999, 0.9])).toBeCloseTo(0.99 * 0.999 * 0.9, 12);
    expect(combinedAvailability([0.99, 0.999, 0.9], { beta: 0 })).toBeCloseTo(0.890109, 12);
    expect(combinedAvailability([0.99, 0.999, 0.9], { beta: 1 })).toBe(0.9);
  });

  it('between the ends, β weighs the common-cause branch', () => {
    // 0.1 × 0.999 + 0.9 × 0.999² = 0.0999 + 0.8982009
    expect(combinedAvailability([0.999, 0.999], { beta: 0.1 })).toBeCloseTo(0.9981009, 12);
    // a chain is never more available than its weakest part, never less than the product
    for (const beta of [0, 0.05, 0.5, 0.95, 1]) {
      const a = combinedAvailability([0.97, 0.995, 0.9], { beta });
      expect(a).toBeLessThanOrEqual(0.9);
      expect(a).toBeGreaterThanOrEqual(0.97 * 0.995 * 0.9 - 1e-15);
    }
  });

  it('matches a Monte Carlo of the β-factor model: common-cause outages strike together, the rest independently', () => {
    // Each part is down with probability q_i: a common-cause event (probability β·q_max) downs every
    // part whose q_i it covers (nested: the weaker part's outages include the stronger's), else each
    // part fails on its own. Sampled directly, not through the formula.
    const q = [0.2, 0.1, 0.05];
    const beta = 0.3;
    const random = seededRandom(42);
    const n = 200_000;
    let up = 0;
    for (let i = 0; i < n; i++) {
      const common = random() < beta;
      const u = random(); // shared draw in the common-cause world: part j is down when u < q_j
      let chainUp = true;
      for (const qj of q) {
        const down = common ? u < qj : random() < qj;
        if (down) chainUp = false;
      }
      if (chainUp) up++;
    }
    const model = combinedAvailability(
      q.map((x) => 1 - x),
      { beta },
    );
    expect(Math.abs(up / n - model)).toBeLessThan(0.005);
  });

  it('rejects bad parts and β, naming them', () => {
    expect(() => combinedAvailability([])).toThrow(new RangeError('combinedAvailability needs at least one part'));
    expect(() => combinedAvailability([0.9, 1.1])).toThrow(new RangeError('availabilities[1] must lie in [0, 1], got 1.1'));
    expect(() => combinedAvailability([0.9], { beta: -0.1 })).toThrow(new RangeError('beta must lie in [0, 1], got -0.1'));
  });
});

describe('redundantAvailability: redundant parts with the β-factor', () => {
  it('β = 0 is the parallel figure, β = 1 the strongest part alone', () => {
    expect(redundantAvailability([0.9, 0.9])).toBeCloseTo(0.99, 12);
    expect(redundantAvailability([0.9, 0.99], { beta: 1 })).toBeCloseTo(0.99, 12);
  });

  it('two equal parts: β·q + (1 − β)·q², the β-factor figure for a 1-out-of-2 group', () => {
    // q = 0.001, β = 0.1: 1e-4 + 0.9e-6
    expect(redundantAvailability([0.999, 0.999], { beta: 0.1 })).toBeCloseTo(1 - 1.009e-4, 12);
    // the published α formula claims ~1,000× less downtime for the same pair (α 0.32)
    const published = 1 - combinedAvailabilityAsPublished([{ availability: 0.999, overlap: 0.32 }, { availability: 0.999, overlap: 0.32 }]);
    expect((1 - redundantAvailability([0.999, 0.999], { beta: 0.1 })) / published).toBeGreaterThan(900);
  });

  it('rejects an empty list', () => {
    expect(() => redundantAvailability([])).toThrow(new RangeError('redundantAvailability needs at least one part'));
  });
});

describe('rtoMax: a bound from the breaker mechanics and the dependency drain', () => {
  it('closed: only the drain', () => {
    expect(rtoMax({ state: 'closed', openMs: 5_000, probeRoundMs: 20 })).toBe(0);
    // 300 queued jobs at 100 spare jobs/s
    expect(rtoMax({ state: 'closed', openMs: 5_000, probeRoundMs: 20, backlog: 300, drainPerSecond: 100 })).toBe(3_000);
    expect(rtoMax({ state: 'closed', openMs: 5_000, probeRoundMs: 20, backlog: 1, drainPerSecond: 0 })).toBe(Infinity);
  });

  it('open: the rest of the open period, then one probe round when probes always succeed', () => {
    expect(rtoMax({ state: 'open', openMs: 5_000, probeRoundMs: 20 })).toBe(5_020);
    // open: the dependency drains while the breaker waits (at its spare capacity unless the whole is given)
    expect(rtoMax({ state: 'open', openMs: 5_000, openElapsedMs: 2_000, probeRoundMs: 20, backlog: 300, drainPerSecond: 100 })).toBe(3_020);
    expect(rtoMax({ state: 'open', openMs: 5_000, openElapsedMs: 2_000, probeRoundMs: 20, backlog: 500, drainPerSecond: 100 })).toBe(5_020);
    expect(rtoMax({ state: 'open', openMs: 5_000, openElapsedMs: 2_000, probeRoundMs: 20, backlog: 1_500, drainPerSecond: 100, capacityPerSecond: 300 })).toBe(5_020);
    expect(rtoMax({ state: 'half-open', openMs: 5_000, probeRoundMs: 20, backlog: 600, drainPerSecond: 100, capacityPerSecond: 300 })).toBe(2_020);
    // the jobs in service add their time to the drain, closed or not
    expect(rtoMax({ state: 'closed', openMs: 5_000, probeRoundMs: 20, busyMs: 700, backlog: 100, drainPerSecond: 100, capacityPerSecond: 300 })).toBe(1_700);
    expect(rtoMax({ state: 'half-open', openMs: 5_000, probeRoundMs: 20, busyMs: 700 })).toBe(720);
    // closed, calls queue: what they can wait out costs nothing; an open breaker refuses them all the same
    expect(rtoMax({ state: 'closed', openMs: 5_000, probeRoundMs: 20, busyMs: 700, backlog: 100, drainPerSecond: 100, waitBudgetMs: 450 })).toBe(1_250);
    expect(rtoMax({ state: 'closed', openMs: 5_000, probeRoundMs: 20, backlog: 20, drainPerSecond: 100, waitBudgetMs: 450 })).toBe(0);
    expect(rtoMax({ state: 'half-open', openMs: 5_000, probeRoundMs: 20, busyMs: 700, waitBudgetMs: 450 })).toBe(720);
    expect(rtoMax({ state: 'open', openMs: 5_000, openElapsedMs: 9_000, probeRoundMs: 20 })).toBe(20);
    expect(rtoMax({ state: 'half-open', openMs: 5_000, probeRoundMs: 20 })).toBe(20);
  });

  it('probe rounds: enough that all `probes` succeed in one of them with the given confidence', () => {
    // p = 0.5, 1 probe: 1 − 0.5^n ≥ 0.9 → n = 4: 4 rounds, 3 more open periods
    expect(rtoMax({ state: 'half-open', openMs: 1_000, probeRoundMs: 10, probeSuccessRate: 0.5 })).toBe(4 * 10 + 3 * 1_000);
    // 2 probes: a round succeeds with 0.25; 1 − 0.75^n ≥ 0.9 → n = 9 (0.75^8 = 0.100, 0.75^9 = 0.075)
    expect(rtoMax({ state: 'half-open', openMs: 1_000, probeRoundMs: 10, probes: 2, probeSuccessRate: 0.5 })).toBe(9 * 10 + 8 * 1_000);
    // confidence 0.99 with p = 0.5: n = 7
    expect(rtoMax({ state: 'half-open', openMs: 1_000, probeRoundMs: 10, probeSuccessRate: 0.5, confidence: 0.99 })).toBe(7 * 10 + 6 * 1_000);
    expect(rtoMax({ state: 'open', openMs: 1_000, probeRoundMs: 10, probeSuccessRate: 0 })).toBe(Infinity);
  });

  it('the bound holds in a simulated breaker that reopens on each failed probe', () => {
    // Play the mechanics with seeded luck: wait out the open period, then rounds of probes that
    // each succeed with p; a failed round reopens for openMs. At 90 % confidence the bound must
    // hold in at least 90 % of 2,000 plays (and not in every one: it is not padded).
    const random = seededRandom(7);
    const m = { state: 'open' as const, openMs: 500, openElapsedMs: 100, probeRoundMs: 30, probes: 2, probeSuccessRate: 0.7 };
    const bound = rtoMax(m);
    let held = 0;
    for (let play = 0; play < 2_000; play++) {
      let t = m.openMs - m.openElapsedMs;
      for (;;) {
        t += m.probeRoundMs;
        if (random() < m.probeSuccessRate && random() < m.probeSuccessRate) break;
        t += m.openMs;
      }
      if (t <= bound) held++;
    }
    expect(held / 2_000).toBeGreaterThanOrEqual(0.9);
    expect(held).toBeLessThan(2_000);
  });

  it('rejects bad mechanics, naming them', () => {
    expect(() => rtoMax({ state: 'open', openMs: -1, probeRoundMs: 0 })).toThrow(new RangeError('openMs must be >= 0, got -1'));
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: Number.NaN })).toThrow(/probeRoundMs/);
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: 1, probes: 0 })).toThrow(/probes/);
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: 1, probeSuccessRate: 2 })).toThrow(/probeSuccessRate/);
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: 1, confidence: 1 })).toThrow(/confidence/);
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: 1, backlog: -3 })).toThrow(/backlog/);
    expect(() => rtoMax({ state: 'open', openMs: 1, openElapsedMs: -3, probeRoundMs: 1 })).toThrow(/openElapsedMs/);
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: 1, busyMs: -1 })).toThrow(new RangeError('busyMs must be >= 0, got -1'));
    expect(() => rtoMax({ state: 'open', openMs: 1, probeRoundMs: 1, waitBudgetMs: -1 })).toThrow(new RangeError('waitBudgetMs must be >= 0, got -1'));
  });
});

describe('sloRetryBudget: the aggregate bound', () => {
  /**
   * A population of calls in a total outage (every attempt fails), arriving at random (seeded), each
   * wanting its per-call retries at once (in time order: fast errors, immediate retries); the budget is asked with exact counts over the sliding
   * SLO window. Returns the calls' and the retries' times.
   */
  function outage(aggregate: boolean, fraction = 0.1, sloWindowMs = 10_000) {
    const random = seededRandom(3);
    const calls: number[] = [];
    const retries: number[] = [];
    const inWindow = (xs: number[], t: number) => xs.filter((x) => x > t - sloWindowMs && x <= t).length;
    for (let t = 0; t < 60_000; t += -Math.log(1 - random()) * 20) {
      calls.push(t);
      for (let k = 0; ; k++) {
        const rt = t; // fast errors and immediate retries: the retries of a call come before the next call
        const left = sloRetryBudget({
          p99Ms: 50,
          fraction,
          retriesOfCall: k,
          sloWindowMs,
          ...(aggregate ? { callsInWindow: inWindow(calls, rt), retriesInWindow: inWindow(retries, rt) } : {}),
        });
        if (left < 1) break;
        retries.push(rt);
      }
    }
    return { calls, retries, inWindow };
  }

  it('without counts, nothing bounds the aggregate: every call retries 3 times (the load ×4)', () => {
    const { calls, retries } = outage(false);
    expect(retries.length).toBe(3 * calls.length);
  });

  it('with counts, the retries stay within `fraction` of the calls: over the run and in every window ending at a retry', () => {
    for (const fraction of [0.1, 0.25]) {
      const { calls, retries, inWindow } = outage(true, fraction);
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.length).toBeLessThanOrEqual(fraction * calls.length);
      for (const r of retries) expect(inWindow(retries, r)).toBeLessThanOrEqual(fraction * inWindow(calls, r));
    }
  });

  it('takes the per-call cap and the window’s budget, the smaller; rejects bad counts', () => {
    expect(sloRetryBudget({ p99Ms: 200, callsInWindow: 1_000, retriesInWindow: 95 })).toBe(3);
    expect(sloRetryBudget({ p99Ms: 200, callsInWindow: 1_000, retriesInWindow: 98 })).toBe(2);
    expect(sloRetryBudget({ p99Ms: 200, callsInWindow: 1_000, retriesInWindow: 100 })).toBe(0);
    expect(sloRetryBudget({ p99Ms: 200, retriesOfCall: 2 })).toBe(1);
    expect(sloRetryBudget({ p99Ms: 200, retriesOfCall: 5 })).toBe(0);
    expect(sloRetryBudget({ p99Ms: 200, callsInWindow: 9 })).toBe(0); // floor(0.9) = 0
    expect(() => sloRetryBudget({ p99Ms: 1, callsInWindow: -1 })).toThrow(new RangeError('callsInWindow must be >= 0, got -1'));
    expect(() => sloRetryBudget({ p99Ms: 1, callsInWindow: 1, retriesInWindow: -1 })).toThrow(/retriesInWindow/);
    expect(() => sloRetryBudget({ p99Ms: 1, retriesOfCall: -1 })).toThrow(/retriesOfCall/);
  });
});

describe('dynamicRiskScore and dynamicTrips: a risk score against a fixed threshold', () => {
  const at = (rps: number, errorRate: number, probeSuccessRate = 1) => ({ rps, baseRps: 100, errorRate, probeSuccessRate });

  it('the score is the seed weights’ sum, the same figure as the deprecated dynamicThreshold', () => {
    expect(dynamicRiskScore(at(50, 0.2))).toBeCloseTo(0.15 + 0.1, 12);
    expect(dynamicRiskScore(at(50, 0.2), { rps: 0.3, errorRate: 0.5, probe: 0.2 })).toBeCloseTo(0.25, 12);
    expect(dynamicThreshold(at(70, 0.3, 0.6))).toBe(dynamicRiskScore(at(70, 0.3, 0.6)));
    expect(DYNAMIC_RISK_THRESHOLD).toBe(0.5);
  });

  it('less tolerant under load: the error rate that trips falls as load rises', () => {
    const tripsAt = (rps: number, probe = 1) => {
      for (let e = 0; e <= 100; e++) if (dynamicTrips(at(rps, e / 100, probe))) return e / 100;
      return Infinity;
    };
    expect(tripsAt(0)).toBe(1); // 0.5·1
    expect(tripsAt(50)).toBe(0.7); // 0.15 + 0.35
    expect(tripsAt(100)).toBe(0.4); // 0.3 + 0.2
    expect(tripsAt(1_000)).toBe(0.4); // load saturates
    // and after failed probes
    expect(tripsAt(100, 0.5)).toBe(0.2); // 0.3 + 0.1 + 0.1
    expect(tripsAt(0, 0)).toBe(0.6); // 0.3 + 0.2
  });

  it('never trips a window without errors; takes a threshold and weights', () => {
    expect(dynamicTrips(at(1_000, 0, 0))).toBe(false); // score 0.5, but nothing failed
    expect(dynamicTrips(at(100, 0.1), { threshold: 0.35 })).toBe(true); // 0.3 + 0.05
    expect(dynamicTrips(at(100, 0.1), { threshold: 0.36 })).toBe(false);
    expect(dynamicTrips(at(0, 0.5), { weights: { rps: 0, error: 1, probe: 0 } })).toBe(true);
    expect(() => dynamicTrips(at(0, 0.5), { threshold: 2 })).toThrow(new RangeError('threshold must lie in [0, 1], got 2'));
  });
});
