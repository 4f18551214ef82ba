import { quantileSorted, sampleWithReplacement } from 'simple-statistics';
import { seededRandom } from '../lib/testing.js';

/** How many resamples the bootstrap draws. */
export const RESAMPLES = 2_000;
/** The seed of the bootstrap's own random stream: the same values give the same interval, on any machine. */
export const BOOTSTRAP_SEED = 20_260_101;

/** A figure over seeds: its median and the bootstrap 95 % interval of that median (∞ stands for "not within the run"). */
export interface Estimate {
  readonly median: number;
  readonly lo: number;
  readonly hi: number;
  /** The seeds split into two groups apart (see {@link bimodal}). */
  readonly bimodal: boolean;
}

const ascending = (a: number, b: number): number => a - b;

/** The p-quantile of sorted values (linear interpolation, R's type 7), where ∞ on either side makes ∞ (not ∞ − ∞). */
export function quantileOf(sorted: readonly number[], p: number): number {
  const idx = (sorted.length - 1) * p;
  if (idx % 1 !== 0 && sorted[Math.ceil(idx)] === Infinity) return Infinity;
  return quantileSorted(sorted as number[], p);
}

/** The median of `values` in any order (the mean of the middle two for an even count), `undefined` for none. */
export function medianOf(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : quantileOf([...values].sort(ascending), 0.5);
}

/**
 * The median of `values` and its percentile-bootstrap 95 % interval: {@link RESAMPLES} resamples with
 * replacement, each one's median, and the 2.5 % and 97.5 % quantiles of those medians. The resampling
 * draws from a seeded stream restarted for every call, so the interval depends on the values alone.
 * One value gives an interval of that value; none is a mistake.
 */
export function bootstrapMedian(values: readonly number[], minGap = 0): Estimate {
  if (values.length === 0) throw new RangeError('bootstrapMedian: no values');
  const sorted = [...values].sort(ascending);
  const median = quantileOf(sorted, 0.5);
  const random = seededRandom(BOOTSTRAP_SEED);
  const medians = new Array<number>(RESAMPLES);
  for (let i = 0; i < RESAMPLES; i++) medians[i] = quantileOf(sampleWithReplacement(sorted, sorted.length, random).sort(ascending), 0.5);
  medians.sort(ascending);
  return { median, lo: quantileOf(medians, 0.025), hi: quantileOf(medians, 0.975), bimodal: bimodal(sorted, minGap) };
}

/** The smallest share of the seeds a group must hold for {@link bimodal} to count it as a mode. */
export const MIN_MODE_SHARE = 0.1;

/**
 * Whether the seeds split into two outcomes: sorted, the values have a gap between two neighbours with at least
 * {@link MIN_MODE_SHARE} of the seeds (and at least one) on each side, that gap is at least `minGap` (the figure's
 * practical scale: 10 points of a rate, 10 s of recovery) and wider than the spread of either side. An infinite
 * value (no recovery within the run) is infinitely far from every finite one. Fewer than 3 values are never bimodal.
 */
export function bimodal(values: readonly number[], minGap: number): boolean {
  return bimodalSplit(values, minGap) !== undefined;
}

/** The two groups {@link bimodal} found (each sorted), or undefined when the values are not bimodal. */
export function bimodalSplit(values: readonly number[], minGap: number): [number[], number[]] | undefined {
  const v = [...values].sort(ascending);
  const n = v.length;
  if (n < 3) return undefined;
  const least = Math.max(1, Math.ceil(MIN_MODE_SHARE * n));
  for (let i = least - 1; i < n - least; i++) {
    const gap = v[i + 1]! - v[i]!;
    const spread = Math.max(v[i]! - v[0]!, v[n - 1]! - v[i + 1]!);
    // finite on one side, never recovered on the other; or a gap wider than either side
    if (gap === Infinity || (gap >= minGap && gap > 0 && gap > spread)) return [v.slice(0, i + 1), v.slice(i + 1)];
  }
  return undefined;
}
