import { existsSync, readFileSync } from 'node:fs';
import { availabilityCheck, availabilityCheckText, errorText } from './availability-check.js';
import { tripCheck, tripCheckText } from './dynamic-check.js';
import { PHASE_SVG } from './phase-chart.js';
import { retryCheck, retryCheckText } from './retry-check.js';
import { rtoCheck, rtoCheckLine } from './rto-check.js';
import { rtoScatter, rtoScatterSvg, slimSvg } from './rto-scatter.js';
import type { SeedFile } from './seeds.js';
import { rtoCells } from './table.js';
import { SCENARIOS } from './model.js';

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const seedsOf = (file: SeedFile): string => (file.seeds.length === 1 ? `seed ${file.seeds[0]}` : `seeds ${file.seeds[0]}–${file.seeds[file.seeds.length - 1]}`);

/** The report's `rtoMax` part: the check's line, then the bound against the measured recovery as a scatter. */
export async function rtoSection(file: SeedFile): Promise<string> {
  const cells = rtoCells(file);
  const check = rtoCheck(cells);
  const scatter = rtoScatter(cells);
  const subtitle = [
    `${check.cells} cells, ${seedsOf(file)}; ${scatter.infinite} with an infinite bound or recovery not drawn`,
    'below y = x the bound fails, above y = 2x it overestimates more than twice',
  ];
  return [
    '<h3 id="rto-max"><code>rtoMax</code>: recovery time from the breaker’s mechanics</h3>',
    `<p id="rto-check">${esc(rtoCheckLine(check))}</p>`,
    `<figure class="sla" data-chart="rtoScatter">${await rtoScatterSvg(scatter, subtitle)}</figure>`,
  ].join('\n');
}

const f2 = (x: number): string => x.toFixed(2);
const f3 = (x: number): string => x.toFixed(3);

/** The report's `sloRetryBudget` part: per retrying row and fault, the bound against the measured attempts at C per request. */
export function retrySection(file: SeedFile): string {
  const lines = retryCheck(file);
  const out = [
    '<h3 id="retry-budget"><code>sloRetryBudget</code>: retries bounded in aggregate</h3>',
    `<p>${esc(retryCheckText(lines))} A budget's bound is <code>1 + ratio + minPerSecond / ${'A’s load'}</code>: the formula's aggregate bound <code>1 + fraction</code> plus the token budget's floor spread over the calls; a row without one is bounded by the per-call formula alone (<code>1 + min(maxRetries, …)</code>), fed the run's p99.</p>`,
    '<table id="retry-check"><thead><tr><th>row</th><th>scenario</th><th>formula</th><th>bound</th><th>measured (median)</th><th>measured (max)</th><th>holds</th><th>slack (median)</th></tr></thead><tbody>',
  ];
  for (const l of lines)
    out.push(
      `<tr><td>${esc(l.row)}</td><td>${esc(SCENARIOS[l.scenario].title)}</td><td>${l.formula === 'aggregate' ? 'aggregate (budget)' : 'per call'}</td><td>${f2(l.bound)}</td><td>${f3(l.measuredMedian)}</td><td>${f3(l.measuredMax)}</td><td>${l.holds}/${l.seeds}</td><td>${f3(l.slack)}</td></tr>`,
    );
  out.push('</tbody></table>');
  return out.join('\n');
}

const pct = (x: number | undefined): string => (x === undefined ? '—' : `${(x * 100).toFixed(2)} %`);
/** An error in points for a table cell, kept on one line. */
const cell = (x: number | undefined): string => errorText(x).replace(' ', '&nbsp;');

/** The report's `combinedAvailability` part: each chain's prediction with β = 0 and with β fitted on the other seeds, against the measured figure. */
export function availabilitySection(file: SeedFile): string {
  const lines = availabilityCheck(file);
  const out = [
    '<h3 id="availability"><code>combinedAvailability</code>: a chain in series, with common causes (β)</h3>',
    `<p>${esc(availabilityCheckText(lines))}</p>`,
    '<p>Each hop’s availability is what an SLA reads, its uptime: the mean over the window’s 1 s buckets of the share it served (B: requests admitted; C: attempts answered; the whole: requests answered by C at A). The β of each seed is the one that makes the formula meet the measured figure; each seed is predicted with the median β of the <em>other</em> seeds, so the error is out of sample. β near 1: B’s refusals fall in the seconds C fails (C’s slowness fills B’s threads), one cause. Rows with a breaker, a limiter or a cache have a hop the chain leaves out (calls refused or answered before C), so β = 0 overestimates them; with retries, C’s share is per attempt, not per call.</p>',
    '<table id="availability-check"><thead><tr><th>chain</th><th>scenario</th><th>row</th><th>measured</th><th>β = 0</th><th>error</th><th>β (fitted)</th><th>β from the other seeds</th><th>error</th></tr></thead><tbody>',
  ];
  for (const l of lines)
    out.push(
      `<tr><td>${l.chain === 'chain' ? 'A → B → C' : 'both classes'}</td><td>${esc(SCENARIOS[l.scenario].title)}</td><td>${esc(l.row)}</td><td>${pct(l.measured)}</td><td>${pct(l.independent)}</td><td>${cell(l.errorIndependent)}</td><td>${l.beta === undefined ? '—' : l.beta.toFixed(2)}</td><td>${pct(l.withBeta)}</td><td>${cell(l.errorWithBeta)}</td></tr>`,
    );
  out.push('</tbody></table>');
  return out.join('\n');
}

const sec = (x: number | undefined): string => (x === undefined ? '—' : `${x.toFixed(1)} s`);

/** The report's dynamic threshold part: each check row's first trip against the moment the formula names. */
export function tripSection(file: SeedFile): string {
  const lines = tripCheck(file);
  const out = [
    '<h3 id="dynamic-threshold"><code>dynamicThreshold</code>: a risk score against a fixed threshold</h3>',
    `<p>${esc(tripCheckText(lines))}</p>`,
    '<p>The check rows (lab/trip-rules.ts) put a <code>circuitBreaker({ trip: \'dynamicThreshold\', baseRps: A’s load })</code>, or the same breaker with a fixed error ratio of 50 %, behind B’s 300 ms attempt timeout. The formula, <code>sla.dynamicTrips</code>, is fed each second the breaker’s 10 s window as C saw it (attempts settled, attempts not answered: the load and the error rate; probes all successful before the first opening) and names the second it should trip in. At full load the risk score trips at 40 % errors where the fixed ratio waits for 50 %: in the capacity drop, where timeouts climb, it trips first; at 30 % errors neither trips (0.3 + 0.5 × 0.3 = 0.45 &lt; 0.5).</p>',
    '<table id="trip-check"><thead><tr><th>row</th><th>scenario</th><th>agrees</th><th>tripped</th><th>formula tripped</th><th>first trip (median)</th><th>errors in the window then (median)</th><th>breaker − formula (median)</th></tr></thead><tbody>',
  ];
  for (const l of lines)
    out.push(
      `<tr><td>${esc(l.row)}</td><td>${esc(SCENARIOS[l.scenario].title)}</td><td>${l.agree}/${l.seeds}</td><td>${l.tripped}</td><td>${l.formulaTripped}</td><td>${sec(l.medianTripS)}</td><td>${pct(l.medianTripErrorRate)}</td><td>${sec(l.medianDeltaS)}</td></tr>`,
    );
  out.push('</tbody></table>');
  return out.join('\n');
}

/**
 * The phase diagram of the sweep (`npm run lab:sweep` draws it into {@link PHASE_SVG} from lab/sweep.json), made
 * small for inlining; undefined when the file is not there (the lab run outside the repository).
 */
export function phaseDiagram(path: string = PHASE_SVG): string | undefined {
  if (!existsSync(path)) return undefined;
  return slimSvg(readFileSync(path, 'utf8').trim());
}

/** The report's phase diagram part: the sweep's picture ({@link phaseDiagram}) and what it shows, or a line saying it is missing. */
export function phaseSection(svg: string | undefined): string {
  const head = '<h2 id="phase">Phase diagram: where the system stays metastable</h2>';
  if (svg === undefined) return `${head}\n<p>Not drawn: ${esc(PHASE_SVG)} is missing (<code>npm run lab:sweep</code> draws it).</p>`;
  return [
    head,
    '<p>From the committed sweep (lab/sweep.json, <code>npm run lab:sweep</code>; not from this run): the errors scenario over a grid, A’s load across and C’s error rate during the fault up, one panel per row and caller patience; each cell says whether the system recovered within 30 s of the fault’s end (green), stayed metastable in some seeds or every seed (orange, red: the trigger gone, retries and abandoned work keep C saturated), or fell under 99 % real answers before the fault (grey: overloaded by the load alone). Only <code>naiveRetry</code> has a metastable region, drawn by the load and the trigger’s size rather than by the patience (docs/lab.md, “Sweeps”).</p>',
    `<figure class="sla" data-chart="phase">${svg}</figure>`,
  ].join('\n');
}

/** The report's section on the SLA formulas, each checked against the lab's figures. */
export async function slaSection(file: SeedFile): Promise<string> {
  return [
    '<h2 id="sla">SLA formulas against the lab</h2>',
    '<p>Each formula of <code>breakwater/sla</code> against what the lab measured, with its error (docs/lab.md, “SLA formulas against the lab”).</p>',
    await rtoSection(file),
    availabilitySection(file),
    retrySection(file),
    tripSection(file),
  ].join('\n');
}
