import { combinedAvailability } from '../lib/sla.js';
import type { ScenarioName } from './model.js';
import type { RowName } from './rows.js';
import type { Metric, SeedFile } from './seeds.js';
import { medianOf } from './stats.js';

/** One run as the check reads it: the parts' availabilities and the measured availability of the whole. */
export interface SeriesSample {
  readonly parts: readonly number[];
  readonly measured: number;
}

/**
 * The β that makes `combinedAvailability(parts, { beta })` equal `measured`:
 * `(measured − Π parts) / (min parts − Π parts)`, clamped to [0, 1] (a whole less available than the product
 * has no common cause to credit: 0); undefined when the parts leave no room (one part alone is below 1, so the
 * product is the weakest part).
 */
export function betaOf(s: SeriesSample): number | undefined {
  let product = 1;
  let weakest = 1;
  for (const a of s.parts) {
    product *= a;
    weakest = Math.min(weakest, a);
  }
  if (weakest - product < 1e-9) return undefined;
  return Math.min(1, Math.max(0, (s.measured - product) / (weakest - product)));
}


/** How `combinedAvailability` predicted a set of runs of one row in one scenario. */
export interface SeriesCheck {
  readonly runs: number;
  /** The measured availability of the whole: median over runs. */
  readonly measured: number;
  /** The prediction with independent parts (β = 0), and its error `prediction − measured`: medians over runs. */
  readonly independent: number;
  readonly errorIndependent: number;
  /** The β fitted to each run ({@link betaOf}): median over runs (undefined when no run leaves room for one). */
  readonly beta: number | undefined;
  /**
   * The prediction with β fitted on the other runs (leave one out: each run predicted with the median β of the
   * rest, so no run is predicted with its own figure), and its error: medians over runs.
   */
  readonly withBeta: number | undefined;
  readonly errorWithBeta: number | undefined;
}

/** Checks `combinedAvailability` over `samples` (the seeds of one row in one scenario), with β = 0 and with β fitted on the other seeds. */
export function seriesCheck(samples: readonly SeriesSample[]): SeriesCheck | undefined {
  if (samples.length === 0) return undefined;
  const betas = samples.map(betaOf);
  const independent = samples.map((s) => combinedAvailability(s.parts));
  const withBeta: number[] = [];
  const errorWithBeta: number[] = [];
  samples.forEach((s, i) => {
    const beta = medianOf(betas.filter((b, k): b is number => k !== i && b !== undefined));
    if (beta === undefined) return;
    const p = combinedAvailability(s.parts, { beta });
    withBeta.push(p);
    errorWithBeta.push(p - s.measured);
  });
  return {
    runs: samples.length,
    measured: medianOf(samples.map((s) => s.measured))!,
    independent: medianOf(independent)!,
    errorIndependent: medianOf(independent.map((p, i) => p - samples[i]!.measured))!,
    beta: medianOf(betas.filter((b): b is number => b !== undefined)),
    withBeta: medianOf(withBeta),
    errorWithBeta: medianOf(errorWithBeta),
  };
}

/** The two chains the check composes: A → B → C (B's admission, C's answers; the whole: real answers at A), and two classes that need B at once. */
export const CHAINS = {
  chain: { parts: ['hopB', 'hopC'], whole: 'realBuckets' },
  classes: { parts: ['realBuckets', 'otherReal'], whole: 'bothReal' },
} as const satisfies Record<string, { parts: readonly Metric[]; whole: Metric }>;

/** One line of the check: a chain of one row in one scenario. */
export interface AvailabilityLine extends SeriesCheck {
  readonly chain: keyof typeof CHAINS;
  readonly scenario: ScenarioName;
  readonly row: RowName;
}

/** The samples of a chain for one row in one scenario: one per seed that recorded every figure it needs. */
export function samplesOf(file: SeedFile, scenario: ScenarioName, row: RowName, chain: keyof typeof CHAINS): SeriesSample[] {
  const { parts, whole } = CHAINS[chain];
  const at = (v: readonly unknown[], m: Metric): number | undefined => {
    const i = file.metrics.indexOf(m);
    const x = i < 0 ? undefined : v[i];
    return typeof x === 'number' ? x : undefined;
  };
  const out: SeriesSample[] = [];
  for (const seed of file.seeds) {
    const v = file.runs[String(seed)]?.[scenario]?.[row];
    if (v === undefined) continue;
    const ps = parts.map((m) => at(v, m));
    const w = at(v, whole);
    if (w === undefined || ps.some((p) => p === undefined)) continue;
    out.push({ parts: ps as number[], measured: w });
  }
  return out;
}

/** The check over every row and scenario of `file` that recorded a chain's figures. */
export function availabilityCheck(file: SeedFile): AvailabilityLine[] {
  const out: AvailabilityLine[] = [];
  for (const chain of Object.keys(CHAINS) as (keyof typeof CHAINS)[])
    for (const scenario of file.scenarios)
      for (const row of file.rows) {
        const c = seriesCheck(samplesOf(file, scenario, row, chain));
        if (c !== undefined) out.push({ chain, scenario, row, ...c });
      }
  return out;
}

const pp = (x: number | undefined): string => (x === undefined ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)} pp`);

/**
 * One sentence on the check: per chain, the median absolute error of each prediction over the baseline's cells
 * (the chain with no hop left out: no breaker, retry or cache) and over every row's.
 */
export function availabilityCheckText(lines: readonly AvailabilityLine[]): string {
  const abs = (xs: (number | undefined)[]): string => pp(medianOf(xs.filter((x): x is number => x !== undefined).map(Math.abs))).replace(/^[+−]/, '');
  const over = (ls: readonly AvailabilityLine[]): string => {
    // β can be fitted only where both parts fall short of 1: compare the two predictions on those cells
    const fitted = ls.filter((l) => l.errorWithBeta !== undefined);
    const beta = medianOf(fitted.flatMap((l) => (l.beta === undefined ? [] : [l.beta])))?.toFixed(2) ?? '—';
    return (
      `median absolute error ${abs(ls.map((l) => l.errorIndependent))} with β = 0; on the ${fitted.length} where a β can be fitted, ` +
      `${abs(fitted.map((l) => l.errorIndependent))} with β = 0 and ${abs(fitted.map((l) => l.errorWithBeta))} with β fitted on the other seeds (median β ${beta})`
    );
  };
  const part = (chain: keyof typeof CHAINS, what: string): string => {
    const ls = lines.filter((l) => l.chain === chain);
    if (ls.length === 0) return `${what}: not recorded`;
    const base = ls.filter((l) => l.row === 'baseline');
    return `${what}: ${base.length === 0 ? '' : `baseline (${base.length} scenario${base.length === 1 ? '' : 's'}) ${over(base)}; `}every row (${ls.length} row × scenario cells) ${over(ls)}`;
  };
  return `combinedAvailability against the measured availability (means over 1 s buckets): ${part('chain', 'A → B → C, B’s admission × C’s answers against real answers at A')}; ${part('classes', 'both classes at B at once, in the scenarios with a second class')}.`;
}

/** A signed error in percentage points, for the tables. */
export const errorText = pp;
