import { describe, expect, it } from 'vitest';
import { METRICS, type SeedFile } from '../../lab/seeds.js';
import { extraColumns, extraLines, markdownTables, rowsIn } from '../../lab/table.js';

// Two seeds of a focused scenario that ran two rows only, one of them with a figure beyond the common ones.
const file: SeedFile = {
  command: 'test',
  durationMs: 180_000,
  seeds: [1, 2],
  scenarios: ['hanging'],
  rows: ['baseline', 'naiveRetry', 'failFast'],
  metrics: METRICS,
  runs: {
    '1': { hanging: { baseline: [0.67, 0.67, 0, 1, 28, 501, 60, 0.91, 100, 0, 0, '-', 0.91], failFast: [0.67, 0.67, 0, 1, 9, 300, 50, 0.06, 60, 0.2, 0.99, 0.2, 1] } },
    '2': { hanging: { baseline: [0.66, 0.66, 0, 1, 28, 501, 60, 0.92, 100, 0, 0, '-', 0.93], failFast: [0.66, 0.66, 0, 1, 9, 300, 50, 0.06, 58, 0.1, 0.99, 0.2, 1] } },
  },
};

describe('the tables of a scenario', () => {
  it('list only the rows that ran there', () => {
    expect(rowsIn(file, 'hanging')).toEqual(['baseline', 'failFast']);
    expect(rowsIn(file, 'hardOutage')).toEqual([]);
  });

  it('add a second table of the figures some row recorded beyond the common ones', () => {
    const columns = extraColumns(file, 'hanging');
    expect(columns.map((c) => c.metric)).toEqual(['healthyRealInFault']);
    expect(extraLines(file, 'hanging', columns)).toEqual([
      ['baseline', '92.0 % (91.0–93.0)'],
      ['failFast', '100.0 %'],
    ]);
    const md = markdownTables(file);
    expect(md).toContain('| row | other class real in fault |');
    expect(md).toContain('| `baseline` | 92.0 % (91.0–93.0) |');
    expect(md).not.toContain('`naiveRetry`');
  });
});
