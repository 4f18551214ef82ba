import { describe, expect, it } from 'vitest';
import { METRICS, seedFileJson, seedJson, valuesOf, type SeedFile } from '../../lab/seeds.js';

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

  it('gives one seed’s runs as text, for comparing a rerun', () => {
    expect(seedJson(file, 2)).toBe(JSON.stringify(file.runs['2']));
    expect(seedJson(file, 3)).toBe('null');
  });
});
