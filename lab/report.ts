import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { Series } from './figures.js';
import { CLAIMS } from './claims.js';
import { judgeAll, type ClaimResult } from './predicates.js';
import type { LabResults } from './run.js';
import { seedFileOf, windowOf, type SeedFile } from './seeds.js';
import { cells, extraColumns, extraLines, HEAD, ruleText, verdictFigure, verdictText } from './table.js';
import { phaseDiagram, phaseSection, slaSection } from './sla-section.js';
import { compactSvg, verdictGrid } from './verdicts.js';
import { formatEstimate } from './summary.js';
import { FAULT_NAMES, SCENARIOS, type ScenarioName } from './model.js';

/** The scenarios the report draws charts for: the five faults. */
export const CHARTED: ReadonlySet<ScenarioName> = new Set(FAULT_NAMES);

/** The charts of each charted scenario: which series, its title and axis. */
export const CHARTS: readonly { key: keyof Series; title: string; axis: string }[] = [
  { key: 'realSuccess', title: 'Real success rate (answered by C)', axis: 'share' },
  { key: 'p99RealMs', title: 'p99 latency of real answers at A (refusals and fallbacks left out)', axis: 'ms' },
  { key: 'cLoad', title: "C's load: attempts offered to C", axis: 'attempts / s' },
  { key: 'held', title: "C's queue: jobs held, queued or in service", axis: 'jobs' },
  { key: 'wasted', title: 'Wasted work: jobs C finished for callers that had left', axis: 'jobs / s' },
  { key: 'breakerOpen', title: 'Breaker state: share of time not closed', axis: 'share' },
];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Points per panel at most: longer series are averaged over consecutive buckets (the panels are small). */
const MAX_POINTS = 60;

/** `ys` averaged over groups of consecutive points so that at most {@link MAX_POINTS} remain; nulls are left out of a group. */
export function thin(ys: readonly (number | null)[], bucketS = 1): { t: number; y: number | null }[] {
  const group = Math.max(1, Math.ceil(ys.length / MAX_POINTS));
  const out: { t: number; y: number | null }[] = [];
  for (let i = 0; i < ys.length; i += group) {
    let sum = 0;
    let n = 0;
    for (let k = i; k < Math.min(ys.length, i + group); k++) {
      const y = ys[k];
      if (y !== null && y !== undefined) {
        sum += y;
        n++;
      }
    }
    out.push({ t: i * bucketS, y: n === 0 ? null : Math.round((sum / n) * 1_000) / 1_000 });
  }
  return out;
}

/**
 * Renders one metric of a scenario as small multiples, in Node, with vega-lite + vega: one panel per row (the
 * baseline first), the row in colour over the baseline in grey, the fault shaded, every panel on one scale.
 */
export async function chartSvg(results: LabResults, scenario: string, key: keyof Series, title: string, axis: string): Promise<string> {
  const s = results.scenarios.find((x) => x.name === scenario)!;
  const runs = results.results.filter((r) => r.scenario === scenario && r.series !== undefined && r.seed === results.seeds[0]);
  const shown = runs.filter((r) => key !== 'breakerOpen' || results.rows.find((x) => x.name === r.row)?.breaker);
  const order = results.rows.map((r) => r.name).filter((name) => shown.some((r) => r.row === name));
  const baseline = runs.find((r) => r.row === 'baseline');
  const values: { row: string; kind: 'row' | 'baseline' | 'fault'; t?: number; y?: number | null; from?: number; to?: number }[] = [];
  for (const r of shown) {
    values.push({ row: r.row, kind: 'fault', from: s.faultStartMs / 1_000, to: s.faultEndMs / 1_000 });
    for (const p of thin(r.series![key])) values.push({ row: r.row, kind: 'row', ...p });
    if (baseline !== undefined && r.row !== 'baseline' && key !== 'breakerOpen') for (const p of thin(baseline.series![key])) values.push({ row: r.row, kind: 'baseline', ...p });
  }
  const log = key === 'p99RealMs' || key === 'cLoad' || key === 'held' || key === 'wasted';
  const spec: vl.TopLevelSpec = {
    title: { text: title, subtitle: key === 'breakerOpen' ? 'rows with a breaker' : 'grey: the baseline', anchor: 'start' },
    data: { values },
    columns: 5,
    facet: { field: 'row', type: 'nominal', sort: order, title: null, header: { labelFontSize: 11, labelPadding: 2 } },
    spacing: 6,
    config: { aria: false },
    spec: {
      width: 168,
      height: 64,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'fault'" }],
          mark: { type: 'rect', color: '#f4c7c3', opacity: 0.5 },
          encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' } },
        },
        {
          transform: [{ filter: "datum.kind === 'baseline'" }],
          mark: { type: 'line', strokeWidth: 1, color: '#9e9e9e', interpolate: 'step-after' },
          encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
        },
        {
          transform: [{ filter: "datum.kind === 'row'" }],
          mark: { type: 'line', strokeWidth: 1.2, color: '#1565c0', interpolate: 'step-after' },
          encoding: {
            x: { field: 't', type: 'quantitative', title: 'simulated time (s)', axis: { tickCount: 4, grid: false, labelFontSize: 9, titleFontSize: 9 } },
            y: { field: 'y', type: 'quantitative', title: axis, axis: { tickCount: 3, grid: false, labelFontSize: 9, titleFontSize: 9 }, ...(log ? { scale: { type: 'symlog' } } : {}) },
          },
        },
      ],
    },
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return compactSvg(await view.toSVG());
  } finally {
    view.finalize();
  }
}

/** The charts the report draws for `scenario`: {@link CHARTS} in a charted one (the breakers' only when a row has one), else none. */
export function chartsFor(results: LabResults, scenario: ScenarioName): typeof CHARTS {
  if (!CHARTED.has(scenario)) return [];
  const breakers = results.rows.some((x) => x.breaker);
  return CHARTS.filter((c) => c.key !== 'breakerOpen' || breakers);
}

/** Where {@link chartsOf} keeps a chart: `scenario/key`. */
export const chartId = (scenario: ScenarioName, key: keyof Series): string => `${scenario}/${key}`;

/**
 * Every chart of the report, rendered ahead (`npm start` renders them in a worker thread while the later seeds
 * run; the charts read the first seed's runs only): the SVG by {@link chartId}.
 */
export async function chartsOf(results: LabResults): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of results.scenarios) for (const c of chartsFor(results, s.name)) out.set(chartId(s.name, c.key), await chartSvg(results, s.name, c.key, c.title, c.axis));
  return out;
}

const MARK = { pass: '✓', fail: '✗', borderline: '≈', untested: '·' } as const;

/**
 * The verdict grid, first in the report: strategy × scenario, each cell the claims judged there (✓ pass, ✗ fail,
 * ≈ borderline) and the row's real success and C's load against the baseline's at the same seed (median
 * difference over seeds, with its 95 % interval).
 */
export function verdictTable(perSeed: SeedFile, claims: readonly ClaimResult[]): string {
  const grid = verdictGrid(perSeed, claims);
  const head = perSeed.scenarios.map((s) => `<th>${esc(SCENARIOS[s].title)}</th>`).join('');
  const out = [`<table id="verdicts"><thead><tr><th>strategy</th>${head}</tr></thead><tbody>`];
  for (const [row, line] of grid) {
    const tds = perSeed.scenarios.map((s) => {
      const c = line.get(s)!;
      const marks = c.claims.map((v) => `<span class="${v.verdict}" title="${esc(v.text)}">${MARK[v.verdict]} ${esc(v.id.slice(v.id.indexOf('.') + 1))}</span>`);
      const real = c.realDelta === undefined ? '' : `real ${esc(formatEstimate('realSuccess', c.realDelta, perSeed.seeds.length, true))}`;
      const load = c.loadDelta === undefined ? '' : `load ${esc(formatEstimate('amplification', c.loadDelta, perSeed.seeds.length, true))}`;
      const body = [...marks, real, load].filter(Boolean).join('<br>');
      return `<td>${body || '—'}</td>`;
    });
    out.push(`<tr><th>${esc(row)}</th>${tds.join('')}</tr>`);
  }
  out.push('</tbody></table>');
  return out.join('\n');
}

/** The claims' pass/fail table: one line per claim, each scenario's figure with its interval. */
export function claimsTable(claims: readonly ClaimResult[]): string {
  const out = ['<table id="claims"><thead><tr><th>strategy</th><th>claim</th><th>rule</th><th>figure per scenario</th><th>verdict</th></tr></thead><tbody>'];
  for (const r of claims) {
    const figures = r.scenarios.map((s) => `${esc(s.scenario)}: ${esc(verdictFigure(r, s))} <b class="${s.verdict}">${esc(verdictText(s))}</b>`).join('<br>');
    out.push(
      `<tr class="${r.verdict}"><td>${esc(r.claim.strategy)}</td><td>${esc(r.claim.text)}</td><td>${esc(ruleText(r))}</td><td>${figures || '—'}</td><td class="${r.verdict}">${esc(verdictText(r))}</td></tr>`,
    );
  }
  out.push('</tbody></table>');
  return out.join('\n');
}

/**
 * The self-contained HTML report: the claims' verdicts first, then the SLA formulas checked against the figures
 * (lab/sla-section.ts) and the sweep's phase diagram, then per scenario the figures (median and 95 % interval over
 * the seeds) and, for the first seed, each chart of {@link CHARTS} as small multiples in inline SVG (no script);
 * `charts` holds those already rendered ({@link chartsOf}), the others are rendered here.
 */
export async function htmlReport(
  results: LabResults,
  perSeed: SeedFile = seedFileOf(results, 'npm start'),
  claims: readonly ClaimResult[] = judgeAll(perSeed, CLAIMS),
  charts: ReadonlyMap<string, string> = new Map(),
): Promise<string> {
  const parts: string[] = [];
  for (const s of results.scenarios) {
    const rows = perSeed.rows.filter((row) => perSeed.runs[String(perSeed.seeds[0])]?.[s.name]?.[row] !== undefined);
    parts.push(`<section id="${s.name}"><h2>${esc(s.title)} <small>${esc(windowOf(s.name))}</small></h2>`);
    parts.push(`<table><thead><tr>${HEAD.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>`);
    for (const row of rows) parts.push(`<tr>${cells(perSeed, s.name, row).map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`);
    parts.push('</tbody></table>');
    const extra = extraColumns(perSeed, s.name);
    if (extra.length > 0) {
      parts.push(`<table class="extra"><thead><tr>${['row', ...extra.map((c) => c.head)].map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>`);
      for (const line of extraLines(perSeed, s.name, extra)) parts.push(`<tr>${line.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`);
      parts.push('</tbody></table>');
    }
    // charts for the five faults only: a focused scenario's claims read figures its tables show (the other class,
    // duplicates, the replica), and four more charts per scenario would take the report past 1 MB
    if (!CHARTED.has(s.name)) parts.push(`<p>No charts: this scenario's claims read the figures of its tables.</p>`);
    for (const c of chartsFor(results, s.name)) {
      const svg = charts.get(chartId(s.name, c.key)) ?? (await chartSvg(results, s.name, c.key, c.title, c.axis));
      parts.push(`<figure class="chart" data-chart="${c.key}">${svg}</figure>`);
    }
    parts.push('</section>');
  }
  const m = results.model;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>breakwater lab — seeds ${results.seeds.join(', ')}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}figure{margin:1em 0}small{color:#777;font-weight:normal}
#claims td,#verdicts td{text-align:left;vertical-align:top;font-size:12px}#verdicts th{text-align:left}.fail,.borderline{color:#b00020;font-weight:bold}.pass{color:#1b5e20}.untested{color:#777}
</style></head><body>
<h1>breakwater lab</h1>
<p>A → B → C in virtual time, seeds ${results.seeds.join(', ')}, ${results.durationMs / 1_000} s per run; figures are medians over the seeds with their bootstrap 95 % interval, charts show seed ${results.seeds[0]}. A offers ${m.offeredPerSecond} requests/s (Poisson) and gives up after ${m.callerPatienceMs} ms;
B allows ${m.inFlightLimit} calls in flight; C has ${m.workers} workers, ${m.serviceMeanMs} ms mean service time, a FIFO queue of ${m.queueLimit},
and works on requests whose callers gave up. Figures over the fault and the ${m.afterFaultMs / 1_000} s after it; recovery: from the fault's end until
99 % of requests over a 5 s window get a real answer (∞: not within the run). The shaded band is the fault.</p>
<h2>Verdicts: strategy × scenario</h2>
<p>Each cell: the strategy's claims judged in that scenario (✓ pass, ✗ fail, ≈ borderline: the interval crosses the bound; hover for the claim), then its real success and C's load against the baseline's at the same seed: the median difference over the seeds, with its 95 % interval (— where the baseline or the row did not run).</p>
${verdictTable(perSeed, claims)}
<h2>Claims</h2>
${claimsTable(claims)}
${await slaSection(perSeed)}
${phaseSection(phaseDiagram())}
${parts.join('\n')}
</body></html>
`;
}
