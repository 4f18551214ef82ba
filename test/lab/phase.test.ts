import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sectionIn } from '../../lab/docs.js';
import { PHASE_SVG, phaseSvg } from '../../lab/phase-chart.js';
import { phaseTable, sweepJson, sweepSections, SWEEP_FILE, type SweepAndSensitivities } from '../../lab/phase.js';
import type { SweepFile } from '../../lab/sweep.js';

describe('phaseTable', () => {
  it('lays error rates down and loads across, one mark per patience in the cell, and counts them', () => {
    const run = (recoveryS: number | null, pre = 1) => [recoveryS, pre, 0, 0, 1];
    const file: SweepFile = {
      command: 'test',
      scenario: 'errors',
      durationMs: 125_000,
      recoveryLimitS: 30,
      seeds: [1, 2],
      rows: ['naiveRetry'],
      grid: { offeredPerSecond: [100, 200], errorRate: [0.1, 0.5], callerPatienceMs: [300, 900] },
      metrics: [],
      cells: [
        { row: 'naiveRetry', offeredPerSecond: 100, errorRate: 0.1, callerPatienceMs: 300, runs: [run(0), run(0)] },
        { row: 'naiveRetry', offeredPerSecond: 100, errorRate: 0.1, callerPatienceMs: 900, runs: [run(0), run(0)] },
        { row: 'naiveRetry', offeredPerSecond: 100, errorRate: 0.5, callerPatienceMs: 300, runs: [run(0), run(null)] },
        { row: 'naiveRetry', offeredPerSecond: 100, errorRate: 0.5, callerPatienceMs: 900, runs: [run(null), run(null)] },
        { row: 'naiveRetry', offeredPerSecond: 200, errorRate: 0.1, callerPatienceMs: 300, runs: [run(0, 0.5), run(0, 0.5)] },
        { row: 'naiveRetry', offeredPerSecond: 200, errorRate: 0.1, callerPatienceMs: 900, runs: [run(31), run(31)] },
        { row: 'naiveRetry', offeredPerSecond: 200, errorRate: 0.5, callerPatienceMs: 300, runs: [run(null), run(null)] },
        // a cell missing from the file: shown as –
      ],
    };
    expect(phaseTable(file, 'naiveRetry').split('\n')).toEqual([
      '**`naiveRetry`**: of 8 cells, 3 metastable in every seed, 1 in some, 2 recovered in every seed, 1 overloaded before the fault.',
      '',
      "| C's errors ↓ · A's load → | 100/s | 200/s |",
      '|---|---|---|',
      '| 10 % | · · | × ● |',
      '| 50 % | ◐ ● | ● – |',
    ]);
  });
});

describe('the committed sweep (lab/sweep.json)', () => {
  const text = readFileSync(SWEEP_FILE, 'utf8');
  const file = JSON.parse(text) as SweepAndSensitivities;

  it("generates docs/lab.md's phase diagram and sensitivities byte for byte (`npm run docs:sweep` regenerates them)", () => {
    for (const s of sweepSections(file)) {
      const doc = readFileSync(s.file, 'utf8');
      expect(sectionIn(doc, s.name), `${s.file}: ${s.name} (run \`npm run docs:sweep\`)`).toBe(s.text.trim());
    }
  });

  it(`draws ${PHASE_SVG} byte for byte`, async () => {
    expect(await phaseSvg(file), `${PHASE_SVG} (run \`npm run docs:sweep\`)`).toBe(readFileSync(PHASE_SVG, 'utf8'));
  });

  it('is written as the sweep writes it', () => {
    expect(sweepJson(file)).toBe(text);
  });
});
