import { describe, expect, it } from 'vitest';
import { runLab } from '../../lab/run.js';

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
});
