import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SweepAndSensitivities } from '../../lab/phase.js';
import type { Figures } from '../../lab/figures.js';
import type { RunResult } from '../../lab/run.js';
import { SENSITIVITIES, sensitivityJobs, sensitivityResults, type Sensitivity } from '../../lab/sensitivity.js';

const TWO: Sensitivity = {
  id: 'test',
  question: 'q',
  scenarios: ['errors', 'flapping'],
  rows: ['baseline', 'naiveRetry'],
  seeds: [1, 2],
  durationMs: 10_000,
  variants: [
    { label: 'a', overrides: {} },
    { label: 'b', overrides: { model: { queueLimit: 10 } } },
  ],
};

describe('sensitivityJobs', () => {
  it('plays each variant, scenario, row and seed in that order, the variant in its overrides', () => {
    const jobs = sensitivityJobs([TWO]);
    expect(jobs).toHaveLength(2 * 2 * 2 * 2);
    expect(jobs[0]).toEqual({ row: 'baseline', scenario: 'errors', seed: 1, durationMs: 10_000, series: false, overrides: {} });
    expect(jobs.slice(0, 8).map((j) => `${j.scenario}/${j.row}/${j.seed}`)).toEqual([
      'errors/baseline/1', 'errors/baseline/2', 'errors/naiveRetry/1', 'errors/naiveRetry/2',
      'flapping/baseline/1', 'flapping/baseline/2', 'flapping/naiveRetry/1', 'flapping/naiveRetry/2',
    ]);
    expect(jobs.slice(8).every((j) => j.overrides?.model?.queueLimit === 10)).toBe(true);
  });

  it('plays what the committed lab/sweep.json holds: the same variants, scenarios, rows and seeds (a rerun gives the same file)', () => {
    const file = JSON.parse(readFileSync('lab/sweep.json', 'utf8')) as SweepAndSensitivities;
    expect(file.sensitivities.map((r) => r.id)).toEqual(SENSITIVITIES.map((s) => s.id));
    for (const s of SENSITIVITIES) {
      const r = file.sensitivities.find((x) => x.id === s.id)!;
      expect([r.seeds, r.durationMs, r.variants]).toEqual([s.seeds, s.durationMs, s.variants]);
      for (const v of s.variants) {
        expect(Object.keys(r.runs[v.label]!)).toEqual(s.scenarios);
        for (const scenario of s.scenarios) expect(Object.keys(r.runs[v.label]![scenario]!)).toEqual(s.rows);
      }
    }
  });

  it('keeps the published setting as the first variant of each published sensitivity', () => {
    for (const s of SENSITIVITIES) expect(s.variants.filter((v) => Object.keys(v.overrides).length === 0)).toHaveLength(1);
  });
});

describe('sensitivityResults', () => {
  it('files each run under its variant, scenario and row, one vector per seed', () => {
    const results = sensitivityJobs([TWO]).map(
      (j, k): RunResult => ({ row: j.row, scenario: j.scenario, seed: j.seed, figures: { realSuccess: k / 100, realSuccessDuringFault: 0, recoveryS: k % 3 === 0 ? null : k, amplification: 1 } as Figures }),
    );
    const [r] = sensitivityResults(results, [TWO]);
    expect(r!.runs['a']!['errors']!['naiveRetry']).toEqual([[0.02, 0, 2, 1], [0.03, 0, null, 1]]);
    expect(r!.runs['b']!['flapping']!['naiveRetry']).toEqual([[0.14, 0, 14, 1], [0.15, 0, null, 1]]);
  });
});
