import type { ScenarioName } from './model.js';
import type { RowName } from './rows.js';
import { valuesOf, type Metric, type SeedFile } from './seeds.js';
import { bootstrapMedian, type Estimate } from './stats.js';

/** A comparison of a claim's figure against its bound. */
export type Op = '<' | '<=' | '>=' | '>';

/**
 * How a claim is judged across seeds:
 * - `median`: on the median over seeds and its bootstrap 95 % interval. It passes when the whole interval meets
 *   the bound, fails when the median does not, and is borderline when the median meets it but the interval
 *   crosses it (not enough evidence either way: a published claim must pass, so borderline counts against it).
 * - `seeds`: in at least `share` of the seeds, each seed judged on its own figure (for "never" and "always" claims:
 *   share 1).
 */
export type Rule = { readonly over: 'median' } | { readonly over: 'seeds'; readonly share: number };

/** A claim of docs/strategies.md as a predicate over the lab's per-seed figures. */
export interface Claim {
  /** Stable id, `strategy.what`. */
  readonly id: string;
  readonly strategy: RowName;
  /** The claim, in the words of docs/strategies.md. */
  readonly text: string;
  /** The scenarios it must hold in (each judged alone; the claim passes when every one does). */
  readonly scenarios: readonly ScenarioName[];
  readonly metric: Metric;
  /** Another row: the figure is this row's minus that row's at the same seed (every row sees the same arrivals). */
  readonly relativeTo?: RowName;
  readonly op: Op;
  readonly bound: number;
  readonly rule: Rule;
  /** For a claim the lab cannot check yet: what scenario it needs. Such a claim is `untested`, never failed. */
  readonly needs?: string;
}

/** A claim's verdict in one scenario or overall. */
export type Verdict = 'pass' | 'borderline' | 'fail' | 'untested';

/** A claim judged in one scenario. */
export interface ScenarioVerdict {
  readonly scenario: ScenarioName;
  readonly verdict: Verdict;
  /** The figure over seeds (the delta to the baseline for a relative claim); absent when untested. */
  readonly estimate?: Estimate;
  /** For a `seeds` rule: how many seeds met the bound, of how many. */
  readonly seedsMet?: number;
  readonly seeds: number;
}

/** A claim judged over every scenario it names. */
export interface ClaimResult {
  readonly claim: Claim;
  readonly verdict: Verdict;
  readonly scenarios: readonly ScenarioVerdict[];
}

/** Whether `x op bound`; ∞ compares as the largest value. */
export function meets(x: number, op: Op, bound: number): boolean {
  switch (op) {
    case '<':
      return x < bound;
    case '<=':
      return x <= bound;
    case '>=':
      return x >= bound;
    case '>':
      return x > bound;
  }
}

/**
 * The practical scale of a figure: the least gap the bimodality rule counts (10 points of a rate, 10 s, 0.5× of
 * load, 500 queued writes, 500 attempts a second at C's peak).
 */
export function minGapOf(metric: Metric): number {
  switch (metric) {
    case 'recoveryS':
    case 'rtoMaxS':
    case 'drainS':
    case 'staleAgeP50S':
      return 10;
    case 'backlogPeak':
    case 'peakLoadPerS':
      return 500;
    case 'drainPerS':
      return 10;
    case 'amplification':
    case 'clientAmplification':
      return 0.5;
    case 'p50Ms':
    case 'p99Ms':
    case 'p99RealMs':
      return 100;
    case 'peakInFlight':
      return 20;
    default:
      return 0.1;
  }
}

/** A claim's figure per seed in one scenario: the row's own, or its delta to another row at the same seed. */
export function claimValues(file: SeedFile, claim: Claim, scenario: ScenarioName): number[] {
  const own = valuesOf(file, scenario, claim.strategy, claim.metric);
  if (claim.relativeTo === undefined) return own;
  const base = valuesOf(file, scenario, claim.relativeTo, claim.metric);
  if (base.length !== own.length) return [];
  return own.map((x, i) => x - base[i]!);
}

/** Judges one claim in one scenario. */
export function judgeScenario(file: SeedFile, claim: Claim, scenario: ScenarioName): ScenarioVerdict {
  const values = claim.needs === undefined ? claimValues(file, claim, scenario) : [];
  if (values.length === 0) return { scenario, verdict: 'untested', seeds: 0 };
  const estimate = bootstrapMedian(values, minGapOf(claim.metric));
  if (claim.rule.over === 'seeds') {
    const met = values.filter((x) => meets(x, claim.op, claim.bound)).length;
    return { scenario, verdict: met >= claim.rule.share * values.length ? 'pass' : 'fail', estimate, seedsMet: met, seeds: values.length };
  }
  const { median, lo, hi } = estimate;
  const verdict: Verdict = !meets(median, claim.op, claim.bound) ? 'fail' : meets(lo, claim.op, claim.bound) && meets(hi, claim.op, claim.bound) ? 'pass' : 'borderline';
  return { scenario, verdict, estimate, seeds: values.length };
}

const RANK: Record<Verdict, number> = { pass: 0, untested: 1, borderline: 2, fail: 3 };

/**
 * Judges a claim in every scenario it names: the worst verdict of the scenarios judged (fail over borderline over
 * pass), `untested` when none could be (a scenario not run, or a claim that needs one the lab lacks). A scenario
 * not run is listed as untested and does not fail the claim: `npm start`'s subset judges what it ran.
 */
export function judge(file: SeedFile, claim: Claim): ClaimResult {
  const scenarios = claim.scenarios.map((s) => judgeScenario(file, claim, s));
  const judged = scenarios.filter((s) => s.verdict !== 'untested');
  const verdict = judged.length === 0 ? 'untested' : judged.reduce<Verdict>((w, s) => (RANK[s.verdict] > RANK[w] ? s.verdict : w), 'pass');
  return { claim, verdict, scenarios };
}

/** Judges every claim. */
export function judgeAll(file: SeedFile, claims: readonly Claim[]): ClaimResult[] {
  return claims.map((c) => judge(file, c));
}

/** The claims that do not pass (fail or borderline): what the lab step of CI refuses. */
export function standingFailures(results: readonly ClaimResult[]): ClaimResult[] {
  return results.filter((r) => r.verdict === 'fail' || r.verdict === 'borderline');
}
