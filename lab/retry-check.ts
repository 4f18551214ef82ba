import { strategyRules } from '../config/strategies/rules.js';
import { checkOptions } from '../lib/options.js';
import { sloRetryBudget } from '../lib/sla.js';
import { FAULT_NAMES, MODEL, type ScenarioName } from './model.js';
import type { RowName } from './rows.js';
import { valuesOf, type SeedFile } from './seeds.js';
import { medianOf } from './stats.js';

/** A token retry budget as the lab's rows configure it (`tokenBudget`: retries ≤ ratio × calls + a floor, over a rolling window). */
export interface TokenBudgetSpec {
  readonly ratio: number;
  readonly minPerSecond: number;
}

/** How a retrying row retries in the lab: its tries per call and, if it has one, its budget. */
export interface RetryRowSpec {
  readonly maxAttempts: number;
  readonly budget?: TokenBudgetSpec;
}

/** A strategy's default retry budget, as its option rules resolve it (config/strategies/rules.ts). */
function defaultBudget(strategy: 'budgetedRetry' | 'standard'): TokenBudgetSpec {
  const { budget } =
    strategy === 'standard'
      ? checkOptions(strategyRules.standard, { strategy, fallback: 'fallback' }, strategy)
      : checkOptions(strategyRules.budgetedRetry, { strategy }, strategy);
  if (budget === false || budget.kind !== 'token') throw new Error(`${strategy}'s default budget is not a token budget`);
  return { ratio: budget.ratio, minPerSecond: budget.minPerSecond };
}

/**
 * The lab's retrying rows, with the strategies' defaults: every retry takes 3 tries (`maxAttempts`' default);
 * `budgetedRetry`'s and `standard`'s budgets are their strategies' default token budgets (10 % and half of the
 * calls, each plus 10 retries a second). The others retry without a budget.
 */
export const RETRY_ROWS: Readonly<Partial<Record<RowName, RetryRowSpec>>> = Object.freeze({
  naiveRetry: { maxAttempts: 3 },
  boundedRetry: { maxAttempts: 3 },
  budgetedRetry: { maxAttempts: 3, budget: defaultBudget('budgetedRetry') },
  standard: { maxAttempts: 3, budget: defaultBudget('standard') },
  guardedRetry: { maxAttempts: 3 },
  idempotentRetry: { maxAttempts: 3 },
});

/**
 * The attempts per request the retry formula allows a row over a fault, at `offeredPerSecond` requests a second:
 * - with a budget, the aggregate bound of `sloRetryBudget`, `1 + fraction` attempts per call when every retry
 *   obeys a windowed share of the calls, plus the token budget's floor spread over the calls
 *   (`minPerSecond / offeredPerSecond`): `1 + ratio + minPerSecond / offeredPerSecond`;
 * - without one, the per-call formula alone: `1 + sloRetryBudget({ p99Ms, maxRetries: maxAttempts − 1 })`, the
 *   retries one call may make, fed the run's p99 at A.
 */
export function retryBound(spec: RetryRowSpec, p99Ms: number, offeredPerSecond: number = MODEL.offeredPerSecond): number {
  if (spec.budget !== undefined) return 1 + spec.budget.ratio + spec.budget.minPerSecond / offeredPerSecond;
  return 1 + sloRetryBudget({ p99Ms, maxRetries: spec.maxAttempts - 1 });
}

/** How one retrying row fared in one scenario, over the seeds. */
export interface RetryCheckLine {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  /** Which formula bounds it: the aggregate one (a budget) or the per-call one alone. */
  readonly formula: 'aggregate' | 'perCall';
  /** The bound, attempts at C per request of A (its median over seeds for the per-call formula, which reads the run's p99). */
  readonly bound: number;
  /** The measured attempts at C per request of A during the fault (`amplification`): median and largest over seeds. */
  readonly measuredMedian: number;
  readonly measuredMax: number;
  /** Seeds where measured ≤ bound, of the seeds. */
  readonly holds: number;
  readonly seeds: number;
  /** Median over seeds of `bound − measured`: how much the bound leaves unused (negative: exceeded). */
  readonly slack: number;
}


/** The figures are rounded to 3 digits: a measured figure within this of the bound meets it. */
const ROUNDING = 5e-4;

/** Checks the retry formulas against the measured load at C, for every retrying row of {@link RETRY_ROWS} in the five faults. */
export function retryCheck(file: SeedFile, rows: Readonly<Partial<Record<RowName, RetryRowSpec>>> = RETRY_ROWS): RetryCheckLine[] {
  const out: RetryCheckLine[] = [];
  for (const [row, spec] of Object.entries(rows) as [RowName, RetryRowSpec][])
    for (const scenario of FAULT_NAMES) {
      const measured = valuesOf(file, scenario, row, 'amplification');
      const p99 = valuesOf(file, scenario, row, 'p99Ms');
      if (measured.length === 0 || p99.length !== measured.length) continue;
      const bounds = p99.map((p) => retryBound(spec, p));
      let holds = 0;
      for (const [i, m] of measured.entries()) if (m <= bounds[i]! + ROUNDING) holds++;
      out.push({
        row,
        scenario,
        formula: spec.budget === undefined ? 'perCall' : 'aggregate',
        bound: medianOf(bounds)!,
        measuredMedian: medianOf(measured)!,
        measuredMax: Math.max(...measured),
        holds,
        seeds: measured.length,
        slack: medianOf(measured.map((m, i) => bounds[i]! - m))!,
      });
    }
  return out;
}

/** One sentence on the check: how often each formula held, and its median slack. */
export function retryCheckText(lines: readonly RetryCheckLine[]): string {
  const part = (formula: RetryCheckLine['formula']): string => {
    const ls = lines.filter((l) => l.formula === formula);
    if (ls.length === 0) return 'no cell';
    const holds = ls.reduce((n, l) => n + l.holds, 0);
    const seeds = ls.reduce((n, l) => n + l.seeds, 0);
    const worst = ls.reduce((a, l) => (l.measuredMax - l.bound > a.measuredMax - a.bound ? l : a));
    return (
      `holds in ${holds} of ${seeds} runs, median slack ${medianOf(ls.map((l) => l.slack))!.toFixed(2)} attempts per request ` +
      `(tightest: ${worst.row} in ${worst.scenario}, bound ${worst.bound.toFixed(2)}, measured up to ${worst.measuredMax.toFixed(3)})`
    );
  };
  return (
    `sloRetryBudget against C's measured load during the fault (attempts per request of A): the aggregate bound (rows with a budget) ${part('aggregate')}; ` +
    `the per-call formula alone (rows without one) ${part('perCall')}.`
  );
}
