import { describe, expect, it } from 'vitest';
import { judge, judgeAll, standingFailures, type Claim } from '../../lab/predicates.js';
import { METRICS, type SeedFile, type Value } from '../../lab/seeds.js';

// Crafted per-seed figures: 20 seeds of two rows in two scenarios; every vector sets one figure, the rest are 0.
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const at = (metric: (typeof METRICS)[number], x: Value): Value[] => METRICS.slice(0, -1).map((m) => (m === metric ? x : 0));

function file(figures: Record<string, Record<string, (seed: number) => Value[]>>): SeedFile {
  const runs: Record<string, Record<string, Record<string, Value[]>>> = {};
  for (const seed of SEEDS) {
    runs[String(seed)] = {};
    for (const [scenario, rows] of Object.entries(figures)) {
      runs[String(seed)]![scenario] = {};
      for (const [row, f] of Object.entries(rows)) runs[String(seed)]![scenario]![row] = f(seed);
    }
  }
  return { command: 'test', durationMs: 180_000, seeds: SEEDS, scenarios: Object.keys(figures) as never, rows: ['baseline', 'standard'], metrics: METRICS, runs } as SeedFile;
}

const answered = (scenarios: Claim['scenarios'] = ['hardOutage']): Claim => ({
  id: 'standard.answers',
  strategy: 'standard',
  text: 'answers',
  scenarios,
  metric: 'answered',
  op: '>=',
  bound: 0.99,
  rule: { over: 'median' },
});

describe('judge, on the median and its interval', () => {
  it('passes when the whole interval meets the bound', () => {
    const r = judge(file({ hardOutage: { standard: () => at('answered', 1) } }), answered());
    expect(r.verdict).toBe('pass');
    expect(r.scenarios[0]).toMatchObject({ scenario: 'hardOutage', verdict: 'pass', seeds: 20, estimate: { median: 1, lo: 1, hi: 1 } });
  });

  it('fails when the median misses the bound', () => {
    expect(judge(file({ hardOutage: { standard: (s) => at('answered', s <= 11 ? 0.5 : 1) } }), answered()).verdict).toBe('fail');
  });

  it('is borderline when the median meets the bound but the interval crosses it', () => {
    // half the seeds at 98 %, half at 100 %: median 99 %, interval 98–100 %
    const r = judge(file({ hardOutage: { standard: (s) => at('answered', s <= 10 ? 0.98 : 1) } }), answered());
    expect(r.verdict).toBe('borderline');
    expect(r.scenarios[0]!.estimate).toMatchObject({ lo: 0.98, hi: 1 });
    expect(standingFailures([r])).toEqual([r]);
  });

  it('takes the worst scenario, and judges only the scenarios run (a scenario not run is untested)', () => {
    const f = file({ hardOutage: { standard: () => at('answered', 1) }, latency: { standard: () => at('answered', 0.2) } });
    const both = judge(f, answered(['hardOutage', 'latency']));
    expect(both.verdict).toBe('fail');
    expect(both.scenarios.map((s) => s.verdict)).toEqual(['pass', 'fail']);
    const partly = judge(f, answered(['hardOutage', 'flapping']));
    expect(partly.verdict).toBe('pass');
    expect(partly.scenarios.map((s) => s.verdict)).toEqual(['pass', 'untested']);
  });
});

describe('judge, seed by seed', () => {
  const bounded = (share: number): Claim => ({ ...answered(), id: 'x.bounded', metric: 'p99Ms', op: '<=', bound: 401, rule: { over: 'seeds', share } });
  const oneSlowSeed = file({ hardOutage: { standard: (s) => at('p99Ms', s === 7 ? 450 : 400) } });

  it('"every seed" fails on a single seed that misses, and counts the seeds that met it', () => {
    const r = judge(oneSlowSeed, bounded(1));
    expect(r.verdict).toBe('fail');
    expect(r.scenarios[0]).toMatchObject({ seedsMet: 19, seeds: 20 });
  });

  it('"90 % of seeds" passes with 19 of 20 and fails with 17 of 20', () => {
    expect(judge(oneSlowSeed, bounded(0.9)).verdict).toBe('pass');
    expect(judge(file({ hardOutage: { standard: (s) => at('p99Ms', s <= 3 ? 450 : 400) } }), bounded(0.9)).verdict).toBe('fail');
  });

  it('compares ∞ (never recovered) as the largest value', () => {
    const never: Claim = { ...answered(), id: 'x.never', metric: 'recoveryS', op: '>=', bound: Infinity, rule: { over: 'seeds', share: 1 } };
    expect(judge(file({ capacityDrop: { standard: () => at('recoveryS', null) } }), { ...never, scenarios: ['capacityDrop'] }).verdict).toBe('pass');
    expect(judge(file({ capacityDrop: { standard: (s) => at('recoveryS', s === 2 ? 40 : null) } }), { ...never, scenarios: ['capacityDrop'] }).verdict).toBe('fail');
  });
});

describe('judge, against the baseline', () => {
  it('takes the row minus the baseline at the same seed', () => {
    const below: Claim = { ...answered(['errors']), id: 'x.below', metric: 'realSuccess', op: '<', bound: 0, relativeTo: 'baseline' };
    const f = file({ errors: { baseline: (s) => at('realSuccess', 0.8 + s / 1_000), standard: (s) => at('realSuccess', 0.5 + s / 1_000) } });
    const r = judge(f, below);
    expect(r.verdict).toBe('pass');
    expect(r.scenarios[0]!.estimate!.median).toBeCloseTo(-0.3, 12);
    const above = file({ errors: { baseline: () => at('realSuccess', 0.5), standard: () => at('realSuccess', 0.8) } });
    expect(judge(above, below).verdict).toBe('fail');
  });
});

describe('claims the lab cannot check yet', () => {
  it('are untested, never failed', () => {
    const pending: Claim = { ...answered([]), id: 'x.pending', needs: 'a scenario' };
    const [r] = judgeAll(file({ hardOutage: { standard: () => at('answered', 0) } }), [pending]);
    expect(r!.verdict).toBe('untested');
    expect(standingFailures([r!])).toEqual([]);
  });
});
