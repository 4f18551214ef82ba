import * as vega from 'vega';
import * as vl from 'vega-lite';
import { RECOVERY_STEP_S, type RtoCell } from './rto-check.js';
import { compactSvg } from './verdicts.js';

/** One point of the `rtoMax` scatter: a measured recovery and the bound, s, and how many cells share them. */
export interface RtoPoint {
  readonly measuredS: number;
  readonly boundS: number;
  readonly cells: number;
}

/** The scatter's points and what it leaves out. */
export interface RtoScatter {
  /** Cells with both figures finite, grouped by their (measured, bound) pair to the measurement's 0.1 s step. */
  readonly points: readonly RtoPoint[];
  /** Breaker cells whose measured recovery or bound is ∞ (not drawn: a log axis has no ∞). */
  readonly infinite: number;
}

const toStep = (s: number): number => Math.round(s / RECOVERY_STEP_S) * RECOVERY_STEP_S;

/**
 * The points of the `rtoMax` scatter from the check's cells: breaker cells only, rounded to the measurement's
 * step and counted, so 920 cells make a few hundred marks.
 */
export function rtoScatter(cells: readonly RtoCell[]): RtoScatter {
  const byPair = new Map<string, RtoPoint>();
  let infinite = 0;
  for (const { figures: f } of cells) {
    if (f.rto === undefined) continue;
    if (f.recoveryS === null || f.rto.rtoMaxS === null) {
      infinite++;
      continue;
    }
    const measuredS = Number(toStep(f.recoveryS).toFixed(1));
    const boundS = Number(toStep(f.rto.rtoMaxS).toFixed(1));
    const key = `${measuredS}/${boundS}`;
    const was = byPair.get(key);
    byPair.set(key, { measuredS, boundS, cells: (was?.cells ?? 0) + 1 });
  }
  const points = [...byPair.values()].sort((a, b) => a.measuredS - b.measuredS || a.boundS - b.boundS);
  return { points, infinite };
}

/**
 * The scatter as a compact inline SVG (vega-lite in Node): the bound against the measured recovery, both
 * shifted by the 0.1 s step (a recovery measured as 0 stays on a log axis), a point's area by the cells it
 * stands for, with the lines y = x (below it the bound fails) and y = 2x (above it the bound overestimates
 * more than twice).
 */
export async function rtoScatterSvg(scatter: RtoScatter, subtitle: string | readonly string[]): Promise<string> {
  const shift = RECOVERY_STEP_S;
  const all = scatter.points.flatMap((p) => [p.measuredS + shift, p.boundS + shift]);
  const lo = Math.min(shift, ...all);
  const hi = Math.max(1, ...all) * 1.2;
  const lines = [
    { line: 'y = x', x: lo, y: lo },
    { line: 'y = x', x: hi, y: hi },
    { line: 'y = 2x', x: lo, y: 2 * lo },
    { line: 'y = 2x', x: hi / 2, y: hi },
  ];
  const axis = { grid: false, labelFontSize: 9, titleFontSize: 10, format: '~g' };
  const scale = { type: 'log' as const, domain: [lo, hi] };
  const spec: vl.TopLevelSpec = {
    title: { text: 'rtoMax against the measured recovery, per cell (breaker row × scenario × seed)', subtitle: typeof subtitle === 'string' ? subtitle : [...subtitle], anchor: 'start', fontSize: 12 },
    width: 360,
    height: 300,
    config: { aria: false },
    layer: [
      {
        data: { values: lines },
        mark: { type: 'line', strokeWidth: 1, strokeDash: [4, 3] },
        encoding: {
          x: { field: 'x', type: 'quantitative', scale, title: 'measured recovery + 0.1 s', axis },
          y: { field: 'y', type: 'quantitative', scale, title: 'rtoMax + 0.1 s', axis },
          color: { field: 'line', type: 'nominal', scale: { domain: ['y = x', 'y = 2x'], range: ['#b00020', '#555'] }, legend: { orient: 'top-left', title: null } },
        },
      },
      {
        data: { values: scatter.points.map((p) => ({ x: p.measuredS + shift, y: p.boundS + shift, n: p.cells })) },
        mark: { type: 'circle', color: '#1565c0', opacity: 0.6 },
        encoding: {
          x: { field: 'x', type: 'quantitative', scale },
          y: { field: 'y', type: 'quantitative', scale },
          size: {
            field: 'n',
            type: 'quantitative',
            title: 'cells',
            scale: { range: [12, 240], zero: false },
            legend: { orient: 'bottom-right', values: [...new Set([1, Math.max(1, ...scatter.points.map((p) => p.cells))])] },
          },
        },
      },
    ],
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return slimSvg(compactSvg(await view.toSVG()));
  } finally {
    view.finalize();
  }
}

/**
 * An SVG for inlining in the report: vega's `aria-label` descriptions dropped (a static chart is described by its
 * caption; on a heatmap they are half its bytes) and coordinates rounded to 0.1 px.
 */
export function slimSvg(svg: string): string {
  return svg.replace(/ aria-label="[^"]*"/g, '').replace(/(\d+\.\d)\d+/g, '$1');
}
