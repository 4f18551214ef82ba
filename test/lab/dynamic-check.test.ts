import { describe, expect, it } from 'vitest';
import { tripCheck, tripCheckText } from '../../lab/dynamic-check.js';
import { METRICS, type SeedFile, type Value } from '../../lab/seeds.js';

const vector = (tripS: number | null, tripFormulaS: number | null, tripErrorRate?: number): Value[] =>
  METRICS.map((m) =>
    m === 'tripS' ? tripS : m === 'tripFormulaS' ? tripFormulaS : m === 'tripErrorRate' ? (tripErrorRate ?? '-') : m === 'recoveryS' ? 0 : m === 'rtoMaxS' ? '-' : 1,
  );

describe('tripCheck', () => {
  it('counts the seeds where the breaker tripped in the formula’s second (or neither did), with the median difference', () => {
    const file: SeedFile = {
      command: 'test',
      durationMs: 180_000,
      seeds: [1, 2, 3],
      scenarios: ['capacityDrop'],
      rows: ['dynamicBreaker'],
      metrics: METRICS,
      runs: {
        '1': { capacityDrop: { dynamicBreaker: vector(4, 4, 0.4) } },
        '2': { capacityDrop: { dynamicBreaker: vector(6, 5, 0.44) } },
        '3': { capacityDrop: { dynamicBreaker: vector(null, null) } },
      },
    };
    const [line, ...rest] = tripCheck(file);
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ row: 'dynamicBreaker', scenario: 'capacityDrop', seeds: 3, agree: 2, tripped: 2, formulaTripped: 2, medianDeltaS: 0.5, medianTripS: 5 });
    expect(line!.medianTripErrorRate).toBeCloseTo(0.42, 12);
    expect(tripCheckText([line!])).toContain('dynamicBreaker in capacityDrop: the breaker trips in the formula\'s second in 2 of 3 seeds (tripped in 2, formula 2; median first trip 5.0 s into the fault at 42 % errors in the window');
    expect(tripCheckText([])).toContain('not recorded');
  });
});
