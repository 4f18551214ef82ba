import * as vega from 'vega';
import * as vl from 'vega-lite';
import { SCENARIOS } from './model.js';
import { cellPhases, phaseMark, type SweepFile } from './sweep.js';
import { compactSvg } from './verdicts.js';

/** The phase diagram's picture, beside docs/lab.md (the docs link it). */
export const PHASE_SVG = 'docs/media/lab-sweep.svg';

/** The phase of a cell in words, for the legend, from its mark. */
const LEGEND: Readonly<Record<string, string>> = {
  '·': 'recovered (every seed)',
  '◐': 'metastable (some seeds)',
  '●': 'metastable (every seed)',
  '×': 'overloaded before the fault',
};

/**
 * The phase diagram as an SVG, rendered in Node by vega-lite + vega: one heatmap per row (down) and patience
 * (across), A's load across and C's error rate up, each cell coloured by its phase.
 */
export async function phaseSvg(file: SweepFile): Promise<string> {
  const values = file.cells.map((c) => ({
    row: c.row,
    patience: `patience ${c.callerPatienceMs} ms`,
    load: c.offeredPerSecond,
    errors: `${Math.round(c.errorRate * 100)} %`,
    phase: LEGEND[phaseMark(cellPhases(c, file.recoveryLimitS))]!,
  }));
  const spec: vl.TopLevelSpec = {
    data: { values },
    facet: {
      row: { field: 'row', type: 'nominal', title: null, sort: [...file.rows], header: { labelFontSize: 12, labelFontWeight: 'bold' } },
      column: { field: 'patience', type: 'nominal', title: null, sort: file.grid.callerPatienceMs.map((p) => `patience ${p} ms`), header: { labelFontSize: 12 } },
    },
    spec: {
      width: 150,
      height: 110,
      mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
      encoding: {
        x: { field: 'load', type: 'ordinal', title: "A's load (/s)", sort: [...file.grid.offeredPerSecond], axis: { labelAngle: 0 } },
        y: { field: 'errors', type: 'ordinal', title: "C's errors", sort: file.grid.errorRate.map((e) => `${Math.round(e * 100)} %`).reverse() },
        color: {
          field: 'phase',
          type: 'nominal',
          title: `${file.recoveryLimitS} s after the fault (${file.seeds.length === 1 ? `seed ${file.seeds[0]}` : `seeds ${file.seeds[0]}–${file.seeds[file.seeds.length - 1]}`})`,
          scale: { domain: Object.values(LEGEND), range: ['#a6d96a', '#fdae61', '#d7191c', '#bababa'] },
          legend: { orient: 'bottom', direction: 'horizontal', labelLimit: 300, titleLimit: 400, columns: 2 },
        },
      },
    },
    title: `Where C's errors leave the system metastable (fault ${SCENARIOS[file.scenario].faultStartMs / 1_000}–${SCENARIOS[file.scenario].faultEndMs / 1_000} s)`,
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return `${compactSvg(await view.toSVG())}\n`;
  } finally {
    view.finalize();
  }
}
