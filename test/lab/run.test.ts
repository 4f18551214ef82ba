import { describe, expect, it } from 'vitest';
import { firstSeedRuns, labResults, runLab, type LabOptions, type RunResult } from '../../lab/run.js';

describe('runLab', () => {
  it('runs a scenario for its own length when told, the others for the common one, in a fixed order', async () => {
    const r = await runLab({
      rows: ['baseline'],
      scenarios: ['hardOutage', 'coldCache'],
      seeds: [1],
      durationMs: 40_000,
      durationOf: (s) => (s === 'coldCache' ? 33_000 : 40_000),
    });
    expect(r.results.map((x) => [x.scenario, x.series?.realSuccess.length])).toEqual([
      ['hardOutage', 40],
      ['coldCache', 33],
    ]);
  }, 60_000);

  it('hands over the first seed\'s runs once all are in, in its own order, whatever order they come in', async () => {
    const options: LabOptions = {
      rows: ['baseline', 'standard', 'failFast'],
      scenarios: ['hardOutage', 'latency'],
      seeds: [4, 5],
      durationMs: 31_000,
      only: (row, scenario) => row !== 'failFast' || scenario === 'latency',
    };
    const all = await runLab(options);
    expect(labResults(options, all.results)).toEqual(all);
    let handed: RunResult[] | undefined;
    const onDone = firstSeedRuns(options, (runs) => (handed = runs));
    const shuffled = [...all.results].reverse();
    for (const [i, r] of shuffled.entries()) {
      onDone(r);
      // reversed, the first seed's runs come last: handed over with the very last one
      expect(handed !== undefined).toBe(i === shuffled.length - 1);
    }
    expect(handed).toEqual(all.results.filter((r) => r.seed === 4));
    expect(handed!.map((r) => `${r.scenario}/${r.row}`)).toEqual(['hardOutage/baseline', 'hardOutage/standard', 'latency/baseline', 'latency/standard', 'latency/failFast']);
  }, 60_000);
});
