import { describe, expect, it } from 'vitest';
import { METRICS, type SeedFile, type Value } from '../../lab/seeds.js';
import { slaMarkdown, slaSentences } from '../../lab/sla-text.js';

describe('slaSentences', () => {
  it('gives one sentence per formula, each with its figures', () => {
    const v = (amplification: number, rtoMaxS?: number): Value[] => [
      ...METRICS.slice(0, 11).map((m) => (m === 'amplification' ? amplification : m === 'recoveryS' ? 2 : m === 'p99Ms' ? 300 : 1)),
      ...(rtoMaxS === undefined ? [] : [rtoMaxS]),
    ];
    const file: SeedFile = {
      command: 'test',
      durationMs: 180_000,
      seeds: [1],
      scenarios: ['hardOutage'],
      rows: ['failFast', 'naiveRetry'],
      metrics: METRICS,
      runs: { '1': { hardOutage: { failFast: v(0.1, 3), naiveRetry: v(3) } } },
    };
    const s = slaSentences(file);
    expect(s.rtoMax).toContain('holds in 1 of 1 cells');
    expect(s.sloRetryBudget).toContain('the per-call formula alone (rows without one) holds in 1 of 1 runs');
    expect(s.dynamicThreshold).toContain('not recorded');
    expect(s.combinedAvailability).toContain('A → B → C, B’s admission × C’s answers against real answers at A: not recorded');
  });
});

describe('slaMarkdown', () => {
  it('lists one sentence per formula and the retry table, leaving out the tables of figures the file does not hold', () => {
    const v: Value[] = METRICS.slice(0, 11).map((m) => (m === 'amplification' ? 1.1 : m === 'recoveryS' ? 2 : m === 'p99Ms' ? 300 : 1));
    const file: SeedFile = { command: 'test', durationMs: 180_000, seeds: [1], scenarios: ['hardOutage'], rows: ['budgetedRetry'], metrics: METRICS, runs: { '1': { hardOutage: { budgetedRetry: v } } } };
    const md = slaMarkdown(file);
    for (const f of ['rtoMax', 'combinedAvailability', 'sloRetryBudget', 'dynamicThreshold']) expect(md).toContain(`- **${f}**: `);
    expect(md).toContain('| `budgetedRetry` | hard outage | aggregate (budget) | 1.15 | 1.100 | 1.100 | 1/1 | 0.050 |');
    expect(md).not.toContain('| chain |');
    expect(md).not.toContain('| agrees |');
  });
});
