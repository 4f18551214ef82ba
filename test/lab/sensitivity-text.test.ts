import { describe, expect, it } from 'vitest';
import { discordantPairs, ranking, sensitivityText } from '../../lab/sensitivity-text.js';
import type { SensitivityResult } from '../../lab/sensitivity.js';

// real success per seed (3 seeds), recovery null = never
const runs = (real: number[], recovery: (number | null)[] = [0, 0, 0]) => real.map((x, i) => [x, x, recovery[i]!, 1]);

describe('discordantPairs', () => {
  it('counts the pairs two orders rank the other way round', () => {
    expect(discordantPairs(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(0);
    expect(discordantPairs(['a', 'b', 'c'], ['b', 'a', 'c'])).toBe(1);
    expect(discordantPairs(['a', 'b', 'c'], ['c', 'b', 'a'])).toBe(3);
  });
});

describe('ranking', () => {
  it('orders rows by median real success, best first, ties in row order', () => {
    const r: SensitivityResult = {
      id: 'patience',
      seeds: [1, 2, 3],
      durationMs: 1,
      variants: [{ label: 'x', overrides: {} }],
      runs: { x: { capacityDrop: { baseline: runs([0.1, 0.9, 0.5]), naiveRetry: runs([0.6, 0.6, 0]), standard: runs([0.5, 0.5, 0.5]) } } },
    };
    expect(ranking(r, 'x', 'capacityDrop')).toEqual(['naiveRetry', 'baseline', 'standard']);
  });
});

describe('sensitivityText', () => {
  it("states the flap sensitivity as errorCountTrip's median lead over the baseline per period", () => {
    const r: SensitivityResult = {
      id: 'flapPeriod',
      seeds: [1, 2, 3],
      durationMs: 180_000,
      variants: [
        { label: '5 s', overrides: {} },
        { label: '7 s', overrides: { scenario: { flapPeriodMs: 7_000 } } },
      ],
      runs: {
        '5 s': { flapping: { baseline: runs([0.8, 0.8, 0.8]), errorCountTrip: runs([0.9, 0.85, 0.7]) } },
        '7 s': { flapping: { baseline: runs([0.8, 0.8, 0.8]), errorCountTrip: runs([0.7, 0.75, 0.8], [0, null, 0]) } },
      },
    };
    const text = sensitivityText([r], 'cmd');
    expect(text).toContain('per flap period: +5.0 pts at 5 s, −5.0 pts at 7 s.');
    expect(text).toContain('| flapping | `errorCountTrip` | real 85.0 %, recovery 0.0 s, +5.0 pts vs `baseline` | real 75.0 %, recovery 0.0 s (∞ in 1/3), −5.0 pts vs `baseline` |');
  });

  it("states the fault-length sensitivity per scenario, errorCountTrip's lead over the baseline at each length", () => {
    const r: SensitivityResult = {
      id: 'faultLength',
      seeds: [1, 2, 3],
      durationMs: 180_000,
      variants: [
        { label: '30 s', overrides: {} },
        { label: '32.5 s', overrides: { scenario: { faultMs: 32_500 } } },
      ],
      runs: {
        '30 s': { hardOutage: { baseline: runs([0.7, 0.7, 0.7]), errorCountTrip: runs([0.7, 0.7, 0.7]) }, flapping: { baseline: runs([0.8, 0.8, 0.8]), errorCountTrip: runs([0.8, 0.8, 0.8]) } },
        '32.5 s': { hardOutage: { baseline: runs([0.7, 0.7, 0.7]), errorCountTrip: runs([0.67, 0.66, 0.68]) }, flapping: { baseline: runs([0.8, 0.8, 0.8]), errorCountTrip: runs([0.75, 0.79, 0.8]) } },
      },
    };
    expect(sensitivityText([r], 'cmd')).toContain(
      "per fault's length: hardOutage: +0.0 pts at 30 s, −3.0 pts at 32.5 s; flapping: +0.0 pts at 30 s, −1.0 pts at 32.5 s.",
    );
  });

  it('states the queue sensitivity as the runs that never recover under each queue', () => {
    const r: SensitivityResult = {
      id: 'queueLimit',
      seeds: [1, 2, 3],
      durationMs: 180_000,
      variants: [
        { label: 'queue 1,000', overrides: {} },
        { label: 'queue 100', overrides: { model: { queueLimit: 100 } } },
      ],
      runs: {
        'queue 1,000': { capacityDrop: { baseline: runs([1, 1, 1]), naiveRetry: runs([0, 0, 0], [null, null, 4]) } },
        'queue 100': { capacityDrop: { baseline: runs([1, 1, 1]), naiveRetry: runs([1, 1, 1]) } },
      },
    };
    expect(sensitivityText([r], 'cmd')).toContain('never recover within the run: `naiveRetry` in capacityDrop: 2/3 seeds at queue 1,000, 0/3 seeds at queue 100.');
  });
});
