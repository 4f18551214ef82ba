import type { ScenarioName } from './model.js';
import { minGapOf, type ClaimResult, type Verdict } from './predicates.js';
import type { RowName } from './rows.js';
import { valuesOf, type Metric, type SeedFile } from './seeds.js';
import { bootstrapMedian, type Estimate } from './stats.js';

/** One cell of the verdict grid: a strategy in a scenario. */
export interface VerdictCell {
  /** The claims judged there, with their verdict in this scenario. */
  readonly claims: readonly { readonly id: string; readonly text: string; readonly verdict: Verdict }[];
  /** The row's real success minus the baseline's at the same seed, over seeds; undefined without both. */
  readonly realDelta?: Estimate;
  /** The same for C's load (attempts per request). */
  readonly loadDelta?: Estimate;
}

/** The figures the grid compares with the baseline. */
export const GRID_DELTAS: readonly Metric[] = ['realSuccess', 'amplification'];

/** A row's figure minus the baseline's, seed by seed, over the seeds both ran; undefined when either is missing. */
export function deltaToBaseline(file: SeedFile, scenario: ScenarioName, row: RowName, metric: Metric): Estimate | undefined {
  const own = valuesOf(file, scenario, row, metric);
  const base = valuesOf(file, scenario, 'baseline', metric);
  if (own.length === 0 || own.length !== base.length) return undefined;
  return bootstrapMedian(
    own.map((x, i) => x - base[i]!),
    minGapOf(metric),
  );
}

/** The verdict grid, strategy × scenario, for the rows and scenarios of `file` (the baseline's line left out). */
export function verdictGrid(file: SeedFile, claims: readonly ClaimResult[]): Map<RowName, Map<ScenarioName, VerdictCell>> {
  const grid = new Map<RowName, Map<ScenarioName, VerdictCell>>();
  for (const row of file.rows) {
    if (row === 'baseline') continue;
    const line = new Map<ScenarioName, VerdictCell>();
    for (const scenario of file.scenarios) {
      const judged = claims
        .filter((c) => c.claim.strategy === row)
        .flatMap((c) => c.scenarios.filter((s) => s.scenario === scenario && s.verdict !== 'untested').map((s) => ({ id: c.claim.id, text: c.claim.text, verdict: s.verdict })));
      const realDelta = deltaToBaseline(file, scenario, row, 'realSuccess');
      const loadDelta = deltaToBaseline(file, scenario, row, 'amplification');
      line.set(scenario, { claims: judged, ...(realDelta === undefined ? {} : { realDelta }), ...(loadDelta === undefined ? {} : { loadDelta }) });
    }
    grid.set(row, line);
  }
  return grid;
}

/**
 * An SVG path's `d` with coordinates rounded to whole pixels and the points a straight run passes through dropped
 * and horizontal and vertical segments written as `H` and `V` (vega draws a step line point by point, twice
 * per step: most of a report's bytes). Handles the absolute
 * `M`/`L` paths of line marks; anything else is returned as it is.
 */
export function compactPath(d: string): string {
  if (!/^M[\d.,eL\s-]+$/.test(d)) return d;
  const pts = d
    .slice(1)
    .split('L')
    .map((p) => p.split(',').map((x) => Math.round(Number(x))) as [number, number]);
  if (pts.some((p) => p.length !== 2 || p.some((x) => !Number.isFinite(x)))) return d;
  const kept: [number, number][] = [];
  for (const p of pts) {
    const a = kept[kept.length - 2];
    const b = kept[kept.length - 1];
    if (b !== undefined && b[0] === p[0] && b[1] === p[1]) continue;
    // b lies on the horizontal or vertical segment from a to p: drop it
    const onRun =
      a !== undefined &&
      b !== undefined &&
      ((a[1] === b[1] && b[1] === p[1] && (b[0] - a[0]) * (p[0] - b[0]) >= 0) || (a[0] === b[0] && b[0] === p[0] && (b[1] - a[1]) * (p[1] - b[1]) >= 0));
    if (onRun) kept[kept.length - 1] = p;
    else kept.push(p);
  }
  // a horizontal or vertical segment as H or V: a step is `H x V y`
  let out = `M${kept[0]![0]},${kept[0]![1]}`;
  for (let i = 1; i < kept.length; i++) {
    const [x, y] = kept[i]!;
    const [px, py] = kept[i - 1]!;
    out += y === py ? `H${x}` : x === px ? `V${y}` : `L${x},${y}`;
  }
  return out;
}

/**
 * Attributes vega writes on every element that a static report does not need: roles and classes for its own
 * scripts, opacity 1 and the default font (set once on the root instead).
 */
const NOISE = / (?:role|aria-roledescription|aria-hidden|pointer-events|stroke-miterlimit)="[^"]*"| class="(?:mark-|role-|foreground|background)[^"]*"| opacity="1"| font-family="sans-serif"/g;

/**
 * An SVG made small: every line path compacted ({@link compactPath}), vega's invisible group foregrounds and empty
 * backgrounds dropped, and the attributes a static chart does not need removed (the font set once on the root).
 */
export function compactSvg(svg: string): string {
  return svg
    .replace(/ d="(M[^"]*)"/g, (_m, d: string) => ` d="${compactPath(d)}"`)
    .replace(/<path class="foreground"[^>]*display="none"\/>/g, '')
    .replace(/<path class="background"[^>]*d="M0,0h0v0h0Z"\/>/g, '')
    .replace(NOISE, '')
    .replace(/^<svg /, '<svg font-family="sans-serif" ');
}
