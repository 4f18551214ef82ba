import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../lib/testing.js';
import type { Figures, Series } from '../../lab/figures.js';
import { FAULT_NAMES, MODEL, SCENARIO_NAMES, SCENARIOS } from '../../lab/model.js';
import { publishPlan } from '../../lab/plan.js';
import { CHARTS, htmlReport } from '../../lab/report.js';
import { ROW_NAMES, ROWS } from '../../lab/rows.js';
import type { LabResults, RunResult } from '../../lab/run.js';
import { tripRuleOf } from '../../lab/trip-rules.js';
import { compactPath } from '../../lab/verdicts.js';

// The largest report the lab writes (`--all`, the published runs): every row in the five faults and the focused
// scenarios' rows, three seeds, 180 s of noisy series per chart, every extra figure recorded.
function crafted(): LabResults {
  const plan = publishPlan();
  const random = seededRandom(5);
  const buckets = MODEL.durationMs / MODEL.bucketMs;
  const noisy = (scale: number): number[] => Array.from({ length: buckets }, () => Math.round(random() * scale * 1_000) / 1_000);
  const results: RunResult[] = [];
  for (const seed of [1, 2, 3])
    for (const scenario of SCENARIO_NAMES)
      for (const row of ROW_NAMES.filter((r) => plan.get(r)!.has(scenario))) {
        const figures: Figures = {
          answered: random(),
          realSuccess: random(),
          realSuccessDuringFault: random(),
          realSuccessAfterFault: random(),
          p99RealMs: random() < 0.1 ? null : 100 + random() * 400,
          p50Ms: 10 + random() * 50,
          p99Ms: 100 + random() * 400,
          amplification: random() * 3,
          peakInFlight: Math.round(random() * 100),
          recoveryS: random() < 0.2 ? null : random() * 30,
          breakerOpenInFault: random(),
          sla: {
            hopB: random(),
            hopC: random(),
            realBuckets: random(),
            ...(SCENARIOS[scenario].second === undefined ? {} : { otherReal: random(), bothReal: random() }),
            ...(tripRuleOf(row) === undefined ? {} : { tripS: Math.round(random() * 30), tripFormulaS: Math.round(random() * 30) }),
          },
          extra: { healthyRealInFault: random(), duplicates: random(), backlogPeak: Math.round(random() * 6_000), drainS: random() * 100, replicaShare: random(), defaultShare: random(), staleAgeP50S: random() * 20 },
          ...(ROWS[row].breaker
            ? { rto: { rtoMaxS: random() * 10, state: 'open' as const, openElapsedMs: 0, backlog: 0, recoveryRate: 1, asPublishedS: null, errorLatencyMs: null } }
            : {}),
        };
        const series: Series = { realSuccess: noisy(1), p99Ms: noisy(500), p99RealMs: noisy(500), cLoad: noisy(600), held: noisy(1_000), wasted: noisy(100), breakerOpen: noisy(1) };
        results.push({ row, scenario, seed, figures, ...(seed === 1 ? { series } : {}) });
      }
  return {
    seeds: [1, 2, 3],
    durationMs: MODEL.durationMs,
    model: MODEL,
    scenarios: SCENARIO_NAMES.map((name) => ({ name, title: SCENARIOS[name].title, faultStartMs: SCENARIOS[name].faultStartMs, faultEndMs: SCENARIOS[name].faultEndMs })),
    rows: ROW_NAMES.map((name) => ({ name, breaker: ROWS[name].breaker })),
    results,
  };
}

describe('the report of a full run', () => {
  it('stays under 1 MB, with the verdict grid first, every chart drawn, the SLA checks and the phase diagram', async () => {
    const html = await htmlReport(crafted());
    if (process.env.DUMP_REPORT) (await import('node:fs')).writeFileSync(process.env.DUMP_REPORT, html);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(1_000_000);
    const grid = html.indexOf('id="verdicts"');
    expect(grid).toBeGreaterThan(0);
    expect(grid).toBeLessThan(html.indexOf('<section'));
    // charts for the five faults; every scenario has its section
    expect([...html.matchAll(/<figure class="chart"/g)]).toHaveLength(FAULT_NAMES.length * CHARTS.length);
    for (const s of SCENARIO_NAMES) expect(html).toContain(`<section id="${s}">`);
    // the SLA formulas' checks, the rtoMax scatter and the sweep's phase diagram, inline
    for (const id of ['sla', 'rto-max', 'availability', 'retry-budget', 'dynamic-threshold', 'phase']) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('<figure class="sla" data-chart="rtoScatter"><svg');
    expect(html).toContain('<figure class="sla" data-chart="phase"><svg');
    // one line of the grid per strategy (the baseline is the reference)
    const table = html.slice(grid, html.indexOf('</table>', grid));
    expect([...table.matchAll(/<tr><th>(?!strategy<)/g)]).toHaveLength(ROW_NAMES.length - 1);
  }, 120_000);
});

describe('compactPath', () => {
  it('rounds to whole pixels, drops the points a straight run passes through, and writes steps as H and V', () => {
    expect(compactPath('M0,0L4.222,0L4.222,0L8.444,0L8.444,5L12.667,5L12.667,5L16.889,5')).toBe('M0,0H8V5H17');
  });

  it('keeps a run that turns back, and leaves other paths as they are', () => {
    expect(compactPath('M0,0L10,0L5,0L7,3')).toBe('M0,0H10H5L7,3');
    expect(compactPath('M0,0h760v220h-760Z')).toBe('M0,0h760v220h-760Z');
  });
});
