import type { Figures } from './figures.js';

/** The claims `rtoMax` must meet against the lab (issue "The lab as evidence"): it holds in ≥ 90 % of cells and overestimates by ≤ 2× (median). */
export const RTO_CLAIM = Object.freeze({ holdShare: 0.9, medianOverestimate: 2 });

/** The measured recovery's resolution, s: it is found in 100 ms steps. */
export const RECOVERY_STEP_S = 0.1;

/** How `rtoMax` fared against the measured recovery over a set of cells (breaker rows × scenarios × seeds). */
export interface RtoCheck {
  /** Cells with a bound (breaker rows). */
  readonly cells: number;
  /**
   * Cells where the bound is at least the measured recovery, within the measurement's step (the recovery is
   * found in 0.1 s steps, so it is known to 0.1 s); an infinite recovery needs an infinite bound.
   */
  readonly holds: number;
  readonly holdShare: number;
  /**
   * Median over cells with both figures finite of `(bound + step) / (measured + step)`, the step being the
   * measurement's 0.1 s resolution (so a recovery measured as 0 is not an infinite ratio); null with no such cell.
   */
  readonly medianOverestimate: number | null;
  /** Mean of `bound − measured` over the same cells, s. */
  readonly meanErrorS: number | null;
  /** Whether both claims of {@link RTO_CLAIM} hold. */
  readonly passes: boolean;
}

/** What the check reads of a cell: the measured recovery and, for a breaker row, the bound (s; null = ∞). */
export interface RtoCell {
  readonly figures: Pick<Figures, 'recoveryS'> & { readonly rto?: Pick<NonNullable<Figures['rto']>, 'rtoMaxS'> };
}

/** Checks `rtoMax` against the measured recovery over `cells` (any rows, scenarios and seeds; rows without a bound are skipped). */
export function rtoCheck(cells: readonly RtoCell[]): RtoCheck {
  let n = 0;
  let holds = 0;
  const ratios: number[] = [];
  let errorSum = 0;
  for (const { figures: f } of cells) {
    if (f.rto === undefined) continue;
    n++;
    const bound = f.rto.rtoMaxS;
    const measured = f.recoveryS;
    if (bound === null ? true : measured !== null && bound + RECOVERY_STEP_S >= measured - 1e-9) holds++;
    if (bound !== null && measured !== null) {
      ratios.push((bound + RECOVERY_STEP_S) / (measured + RECOVERY_STEP_S));
      errorSum += bound - measured;
    }
  }
  ratios.sort((a, b) => a - b);
  const mid = ratios.length >> 1;
  const medianOverestimate = ratios.length === 0 ? null : ratios.length % 2 === 1 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
  const holdShare = n === 0 ? 1 : holds / n;
  return {
    cells: n,
    holds,
    holdShare,
    medianOverestimate,
    meanErrorS: ratios.length === 0 ? null : errorSum / ratios.length,
    passes: holdShare >= RTO_CLAIM.holdShare && (medianOverestimate === null || medianOverestimate <= RTO_CLAIM.medianOverestimate),
  };
}

/** One line saying how `rtoMax` fared, for the terminal, the docs' table and the report. */
export function rtoCheckLine(check: RtoCheck): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const median = check.medianOverestimate === null ? '—' : `${check.medianOverestimate.toFixed(2)}×`;
  const meanS = check.meanErrorS === null ? null : Math.round(check.meanErrorS * 10) / 10;
  const mean = meanS === null ? '—' : `${meanS >= 0 ? '+' : ''}${meanS.toFixed(1)} s`;
  return (
    `rtoMax against the measured recovery (breaker rows): holds in ${check.holds} of ${check.cells} cells (${pct(check.holdShare)}; claim ≥ ${pct(RTO_CLAIM.holdShare)}), ` +
    `median overestimate ${median} (claim ≤ ${RTO_CLAIM.medianOverestimate}×), mean error ${mean}: ${check.passes ? 'pass' : 'FAIL'}`
  );
}
