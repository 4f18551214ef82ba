import type { ScenarioName } from './model.js';
import { minGapOf } from './predicates.js';
import type { RowName } from './rows.js';
import { valuesOf, type Metric, type SeedFile } from './seeds.js';
import { bootstrapMedian, type Estimate } from './stats.js';

/** The figures a table shows, in column order, with their headers. */
export const COLUMNS: readonly { metric: Metric; head: string }[] = [
  { metric: 'answered', head: 'answered' },
  { metric: 'realSuccess', head: 'real' },
  { metric: 'realSuccessDuringFault', head: 'real in fault' },
  { metric: 'realSuccessAfterFault', head: 'real after' },
  { metric: 'p50Ms', head: 'p50 ms' },
  { metric: 'p99Ms', head: 'p99 ms' },
  { metric: 'p99RealMs', head: 'p99 real ms' },
  { metric: 'amplification', head: 'C load ×' },
  { metric: 'peakInFlight', head: 'peak B' },
  { metric: 'recoveryS', head: 'recovery s' },
  { metric: 'rtoMaxS', head: 'rtoMax s' },
];

/** The figures some scenarios and rows record beyond {@link COLUMNS} (lab/seeds.ts, `EXTRA_METRICS`), with their headers. */
export const EXTRA_COLUMNS: readonly { metric: Metric; head: string }[] = [
  { metric: 'healthyRealInFault', head: 'other class real in fault' },
  { metric: 'duplicates', head: 'keys applied twice' },
  { metric: 'backlogPeak', head: 'backlog peak' },
  { metric: 'drainS', head: 'drained s' },
  { metric: 'drainPerS', head: 'drained / s' },
  { metric: 'replicaShare', head: 'from replica' },
  { metric: 'defaultShare', head: 'default' },
  { metric: 'staleAgeP50S', head: 'stale age p50 s' },
  { metric: 'peakLoadPerS', head: 'C peak / s (10 ms)' },
  { metric: 'clientAmplification', head: 'client sends ×' },
];

/** One cell's figure over seeds, or undefined when the row has none (rtoMax of a row without a breaker). */
export function estimateOf(file: SeedFile, scenario: ScenarioName, row: RowName, metric: Metric): Estimate | undefined {
  const values = valuesOf(file, scenario, row, metric);
  return values.length === 0 ? undefined : bootstrapMedian(values, minGapOf(metric));
}

const pct = (x: number): string => (x * 100).toFixed(1);
const num = (digits: number) => (x: number): string => (x === Infinity ? '∞' : x.toFixed(digits));

/** How a figure is written: rates in %, times and loads with their precision, ∞ as ∞. */
export function formatValue(metric: Metric, x: number): string {
  switch (metric) {
    case 'answered':
    case 'realSuccess':
    case 'realSuccessDuringFault':
    case 'realSuccessAfterFault':
    case 'breakerOpenInFault':
    case 'healthyRealInFault':
    case 'duplicates':
    case 'replicaShare':
    case 'defaultShare':
    case 'hopB':
    case 'hopC':
    case 'realBuckets':
    case 'otherReal':
    case 'bothReal':
    case 'tripErrorRate':
      return `${pct(x)} %`;
    case 'p50Ms':
    case 'p99Ms':
    case 'p99RealMs':
    case 'peakInFlight':
    case 'backlogPeak':
    case 'peakLoadPerS':
      return num(0)(x);
    case 'amplification':
    case 'clientAmplification':
      return num(2)(x);
    case 'drainPerS':
      return num(1)(x);
    case 'recoveryS':
    case 'rtoMaxS':
    case 'drainS':
    case 'staleAgeP50S':
    case 'tripS':
    case 'tripFormulaS':
      return num(1)(x);
  }
}

/** A delta of a figure (signed; rates in points). */
export function formatDelta(metric: Metric, x: number): string {
  if (x === 0) return '0';
  const sign = x > 0 ? '+' : '−';
  const a = Math.abs(x);
  if (formatValue(metric, 0).endsWith(' %')) return `${sign}${pct(a)} pt`;
  return `${sign}${formatValue(metric, a)}`;
}

/** The mark of a figure whose seeds split into two outcomes. */
export const BIMODAL_MARK = '†';

/**
 * An estimate as text: the median, then its 95 % interval when there is more than one seed and the interval is
 * not a point, then {@link BIMODAL_MARK} when bimodal; signed for a `delta` (a difference between two rows).
 */
export function formatEstimate(metric: Metric, e: Estimate | undefined, seeds: number, delta = false): string {
  if (e === undefined) return '—';
  if (delta) {
    const interval = seeds > 1 && e.lo !== e.hi ? ` (${formatDelta(metric, e.lo)} to ${formatDelta(metric, e.hi)})` : '';
    return `${formatDelta(metric, e.median)}${interval}${e.bimodal ? ` ${BIMODAL_MARK}` : ''}`;
  }
  const f = (x: number): string => formatValue(metric, x).replace(' %', '');
  const unit = formatValue(metric, e.median).endsWith(' %') ? ' %' : '';
  const interval = seeds > 1 && e.lo !== e.hi ? ` (${f(e.lo)}–${f(e.hi)})` : '';
  return `${f(e.median)}${unit}${interval}${e.bimodal ? ` ${BIMODAL_MARK}` : ''}`;
}
