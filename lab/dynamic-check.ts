import type { ScenarioName } from './model.js';
import type { RowName } from './rows.js';
import { valuesOf, type Metric, type SeedFile } from './seeds.js';
import { TRIP_RULES } from './trip-rules.js';
import { medianOf } from './stats.js';

/** How one check row's first trip compared with the formula's in one scenario, over the seeds. */
export interface TripLine {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  readonly seeds: number;
  /** Seeds where the breaker tripped in the bucket the formula names, or neither tripped. */
  readonly agree: number;
  /** Seeds where the breaker tripped, and where the formula says it should. */
  readonly tripped: number;
  readonly formulaTripped: number;
  /** Median over seeds where both tripped of `breaker − formula`, s (undefined with none). */
  readonly medianDeltaS: number | undefined;
  /** Median first trip over the seeds where it tripped, s after the fault's start (undefined with none). */
  readonly medianTripS: number | undefined;
  /** Median over the seeds where it tripped of the window's error rate in that second (undefined with none). */
  readonly medianTripErrorRate: number | undefined;
}


/** The check over every check row and scenario of `file` that recorded both trips. */
export function tripCheck(file: SeedFile, rows: readonly RowName[] = Object.keys(TRIP_RULES) as (keyof typeof TRIP_RULES)[]): TripLine[] {
  const out: TripLine[] = [];
  const trip: Metric = 'tripS';
  const formula: Metric = 'tripFormulaS';
  for (const row of rows)
    for (const scenario of file.scenarios) {
      const measured = valuesOf(file, scenario, row, trip);
      const predicted = valuesOf(file, scenario, row, formula);
      if (measured.length === 0 || measured.length !== predicted.length) continue;
      let agree = 0;
      const deltas: number[] = [];
      measured.forEach((m, i) => {
        const p = predicted[i]!;
        if (m === p) agree++;
        if (Number.isFinite(m) && Number.isFinite(p)) deltas.push(m - p);
      });
      const trips = measured.filter(Number.isFinite);
      const rates = valuesOf(file, scenario, row, 'tripErrorRate');
      out.push({
        row,
        scenario,
        seeds: measured.length,
        agree,
        tripped: trips.length,
        formulaTripped: predicted.filter(Number.isFinite).length,
        medianDeltaS: medianOf(deltas),
        medianTripS: medianOf(trips),
        medianTripErrorRate: medianOf(rates),
      });
    }
  return out;
}

const s1 = (x: number | undefined): string => (x === undefined ? '—' : `${x.toFixed(1)} s`);

/** One sentence on the check: agreement per row and scenario, and the two rules' first trips side by side. */
export function tripCheckText(lines: readonly TripLine[]): string {
  if (lines.length === 0) return 'dynamicThreshold against the lab: not recorded.';
  const each = lines.map(
    (l) =>
      `${l.row} in ${l.scenario}: the breaker trips in the formula's second in ${l.agree} of ${l.seeds} seeds (tripped in ${l.tripped}, formula ${l.formulaTripped}; ` +
      `median first trip ${s1(l.medianTripS)} into the fault at ${l.medianTripErrorRate === undefined ? '—' : `${(l.medianTripErrorRate * 100).toFixed(0)} %`} errors in the window, median breaker − formula ${s1(l.medianDeltaS)})`,
  );
  return `circuitBreaker({ trip: 'dynamicThreshold' }) against sla.dynamicTrips fed the window's measured load and error rate: ${each.join('; ')}.`;
}
