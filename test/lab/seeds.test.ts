import { describe, expect, it } from 'vitest';
import { METRICS, seedFileJson, seedJson, valuesOf, vectorOf, type SeedFile } from '../../lab/seeds.js';

const file: SeedFile = {
  command: 'test',
  durationMs: 180_000,
  seeds: [1, 2],
  scenarios: ['hardOutage'],
  rows: ['baseline', 'standard'],
  metrics: METRICS,
  runs: {
    '1': { hardOutage: { baseline: [0.5, 0.5, 0, 0.9, 8, 86, 80, 1, 23, 0, 0], standard: [1, 0.665, 0, 0.99, 8, 133, 120, 0.15, 28, null, 0.4, 0.2] } },
    '2': { hardOutage: { baseline: [0.6, 0.6, 0, 0.9, 8, 86, 80, 1, 23, 1.5, 0], standard: [1, 0.7, 0, 0.99, 8, 130, 120, 0.16, 27, 0.3, 0.5, null] } },
  },
};

describe('the per-seed file', () => {
  it('writes one run per line and reads back the same', () => {
    const text = seedFileJson(file);
    expect(JSON.parse(text)).toEqual(file);
    expect(text).toContain('"standard": [1,0.665,0,0.99,8,133,120,0.15,28,null,0.4,0.2]');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('reads a cell’s figure across seeds, null as ∞, and nothing for a figure the row lacks', () => {
    expect(valuesOf(file, 'hardOutage', 'standard', 'recoveryS')).toEqual([Infinity, 0.3]);
    expect(valuesOf(file, 'hardOutage', 'standard', 'rtoMaxS')).toEqual([0.2, Infinity]);
    expect(valuesOf(file, 'hardOutage', 'baseline', 'rtoMaxS')).toEqual([]);
    expect(valuesOf(file, 'latency', 'baseline', 'answered')).toEqual([]);
  });

  it('keeps the figures a run records beyond the common ones after rtoMax, "-" for one it does not record', () => {
    const withExtra: SeedFile = {
      ...file,
      scenarios: ['hanging'],
      runs: { '1': { hanging: { baseline: [0.5, 0.5, 0, 0.9, 8, 86, 80, 1, 23, 0, 0, '-', 0.92], standard: [1, 0.7, 0, 0.99, 8, 130, 120, 0.16, 27, 0.3, 0.5, 0.2, 1] } } },
    };
    expect(seedFileJson(withExtra)).toContain('"baseline": [0.5,0.5,0,0.9,8,86,80,1,23,0,0,"-",0.92]');
    expect(valuesOf(withExtra, 'hanging', 'baseline', 'healthyRealInFault')).toEqual([0.92]);
    expect(valuesOf(withExtra, 'hanging', 'baseline', 'rtoMaxS')).toEqual([]);
    expect(valuesOf(withExtra, 'hanging', 'standard', 'rtoMaxS')).toEqual([0.2]);
    expect(valuesOf(withExtra, 'hanging', 'standard', 'duplicates')).toEqual([]);
  });

  it('writes a run’s vector with its extra figures in their place, and no trailing "-"', () => {
    const f = { answered: 1, realSuccess: 0.5, realSuccessDuringFault: 0, realSuccessAfterFault: 0.75, p50Ms: 8, p99Ms: 86, p99RealMs: 80, amplification: 1, peakInFlight: 23, recoveryS: 0, breakerOpenInFault: 0 };
    expect(vectorOf('baseline', f)).toEqual([1, 0.5, 0, 0.75, 8, 86, 80, 1, 23, 0, 0]);
    expect(vectorOf('baseline', { ...f, extra: { duplicates: 0.25 } })).toEqual([1, 0.5, 0, 0.75, 8, 86, 80, 1, 23, 0, 0, '-', '-', 0.25]);
    expect(vectorOf('idempotentRetry', { ...f, extra: { healthyRealInFault: 1, drainS: null } })).toEqual([1, 0.5, 0, 0.75, 8, 86, 80, 1, 23, 0, 0, '-', 1, '-', '-', null]);
    expect(vectorOf('idempotentRetry', { ...f, extra: { staleAgeP50S: 2 } })).toEqual([1, 0.5, 0, 0.75, 8, 86, 80, 1, 23, 0, 0, '-', '-', '-', '-', '-', '-', '-', '-', 2]);
  });

  it('gives one seed’s runs as text, for comparing a rerun', () => {
    expect(seedJson(file, 2)).toBe(JSON.stringify(file.runs['2']));
    expect(seedJson(file, 3)).toBe('null');
  });
});
