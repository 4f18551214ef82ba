import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { Series } from './figures.js';
import type { LabResults } from './run.js';
import { cells, COLUMNS } from './table.js';
import { rtoCheck, rtoCheckLine } from './rto-check.js';

/** The charts of each scenario: which series, its title and axis. */
export const CHARTS: readonly { key: keyof Series; title: string; axis: string }[] = [
  { key: 'realSuccess', title: 'Real success rate (answered by C)', axis: 'share of requests' },
  { key: 'p99Ms', title: 'p99 latency at A', axis: 'ms' },
  { key: 'cLoad', title: "C's load: attempts offered to C", axis: 'attempts / s' },
  { key: 'breakerOpen', title: 'Breaker state: share of time not closed', axis: 'share of the second' },
];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Renders one line chart (one line per row) to SVG, in Node, with vega-lite + vega. */
export async function chartSvg(results: LabResults, scenario: string, key: keyof Series, title: string, axis: string): Promise<string> {
  const values: { row: string; t: number; y: number }[] = [];
  const s = results.scenarios.find((x) => x.name === scenario)!;
  for (const r of results.results) {
    if (r.scenario !== scenario) continue;
    if (key === 'breakerOpen' && !results.rows.find((x) => x.name === r.row)?.breaker) continue;
    r.series[key].forEach((y, t) => values.push({ row: r.row, t, y }));
  }
  const spec: vl.TopLevelSpec = {
    width: 760,
    height: 220,
    title,
    data: { values },
    layer: [
      {
        data: { values: [{ from: s.faultStartMs / 1_000, to: s.faultEndMs / 1_000 }] },
        mark: { type: 'rect', color: '#f4c7c3', opacity: 0.5 },
        encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' } },
      },
      {
        mark: { type: 'line', strokeWidth: 1.3, interpolate: 'step-after' },
        encoding: {
          x: { field: 't', type: 'quantitative', title: 'simulated time (s)' },
          y: { field: 'y', type: 'quantitative', title: axis, ...(key === 'p99Ms' || key === 'cLoad' ? { scale: { type: 'symlog' } } : {}) },
          color: { field: 'row', type: 'nominal', title: 'row', scale: { scheme: 'tableau20' }, sort: null },
        },
      },
    ],
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The self-contained HTML report: per scenario, the figures and four charts as inline SVG (no script). */
export async function htmlReport(results: LabResults): Promise<string> {
  const parts: string[] = [];
  for (const s of results.scenarios) {
    const rows = results.results.filter((r) => r.scenario === s.name);
    parts.push(`<section id="${s.name}"><h2>${esc(s.title)} <small>fault ${s.faultStartMs / 1_000}–${s.faultEndMs / 1_000} s</small></h2>`);
    parts.push(`<table><thead><tr>${COLUMNS.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>`);
    for (const r of rows) parts.push(`<tr>${cells(r).map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`);
    parts.push('</tbody></table>');
    for (const c of CHARTS) {
      if (c.key === 'breakerOpen' && !results.rows.some((x) => x.breaker)) continue;
      parts.push(`<figure class="chart" data-chart="${c.key}">${await chartSvg(results, s.name, c.key, c.title, c.axis)}</figure>`);
    }
    parts.push('</section>');
  }
  const m = results.model;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>breakwater lab — seed ${results.seed}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}figure{margin:1em 0}small{color:#777;font-weight:normal}
</style></head><body>
<h1>breakwater lab</h1>
<p>A → B → C in virtual time, seed ${results.seed}, ${results.durationMs / 1_000} s per run. A offers ${m.offeredPerSecond} requests/s (Poisson) and gives up after ${m.callerPatienceMs} ms;
B allows ${m.inFlightLimit} calls in flight; C has ${m.workers} workers, ${m.serviceMeanMs} ms mean service time, a FIFO queue of ${m.queueLimit},
and works on requests whose callers gave up. Figures over the fault and the ${m.afterFaultMs / 1_000} s after it; recovery: from the fault's end until
99 % of requests over a 5 s window get a real answer (∞: not within the run). The shaded band is the fault.</p>
<p id="rto-check">${esc(rtoCheckLine(rtoCheck(results.results)))}</p>
${parts.join('\n')}
</body></html>
`;
}
