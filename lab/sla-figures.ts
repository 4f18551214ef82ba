import { MODEL, SCENARIOS } from './model.js';
import { Outcome, type ClassRecord, type RunRecord } from './simulate.js';
import { formulaTripMs, tripRuleOf, windowErrorRate } from './trip-rules.js';

/**
 * What a run records for the availability check (lab/availability-check.ts): each hop's availability and the
 * end-to-end one, as an SLA reads them: the mean over the window's 1 s buckets of the bucket's success share
 * (uptime, not a share of requests).
 */
export interface SlaFigures {
  /** B: the share of A's requests it admitted (had a thread for). */
  hopB: number;
  /** C: the share of the attempts that settled that it answered; buckets without attempts (a breaker open) are left out. */
  hopC: number;
  /** End to end: the share of A's requests answered by C. */
  realBuckets: number;
  /** With a second class at B: that class's share answered by its dependency (real), and the mean of the two classes' product per bucket (both answered at once). */
  otherReal?: number;
  bothReal?: number;
  /**
   * For a check row of the trip rules (lab/trip-rules.ts): the start of the second in which its breaker first
   * opened at or after the fault's start, and the second in which the rule fed the run's measured window says it
   * should, s after the fault's start (null: not within the run).
   */
  tripS?: number | null;
  tripFormulaS?: number | null;
  /** The error rate of the breaker's window (as C saw it) in the second it first opened: how many errors it took. */
  tripErrorRate?: number;
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Per bucket of [from, to): the requests of `c` arriving in it, and how many of them `ok` counts. */
function perBucket(c: Pick<ClassRecord, 'arrival'>, ok: (i: number) => boolean, from: number, to: number): { total: Uint32Array; good: Uint32Array } {
  const first = Math.floor(from / MODEL.bucketMs);
  const n = Math.ceil(to / MODEL.bucketMs) - first;
  const total = new Uint32Array(n);
  const good = new Uint32Array(n);
  for (let i = 0; i < c.arrival.length; i++) {
    const t = c.arrival[i]!;
    if (t < from || t >= to) continue;
    const b = Math.floor(t / MODEL.bucketMs) - first;
    total[b]!++;
    if (ok(i)) good[b]!++;
  }
  return { total, good };
}

/** The mean over buckets with a request of `good / total` (1 with no such bucket). */
export function bucketMean(total: ArrayLike<number>, good: ArrayLike<number>): number {
  let sum = 0;
  let n = 0;
  for (let b = 0; b < total.length; b++) {
    if (total[b]! === 0) continue;
    sum += good[b]! / total[b]!;
    n++;
  }
  return n === 0 ? 1 : sum / n;
}

/** The {@link SlaFigures} of a run over [from, to); undefined for a record without the hop counts. */
export function slaFigures(r: RunRecord, from: number, to: number): SlaFigures | undefined {
  const { admitted, settled, answered } = r;
  if (admitted === undefined || settled === undefined || answered === undefined) return undefined;
  const a = perBucket(r, (i) => admitted[i] === 1, from, to);
  const real = perBucket(r, (i) => r.outcome[i] === Outcome.Real, from, to);
  const first = Math.floor(from / MODEL.bucketMs);
  const last = Math.ceil(to / MODEL.bucketMs);
  const out: SlaFigures = {
    hopB: round(bucketMean(a.total, a.good)),
    hopC: round(bucketMean(settled.subarray(first, last), answered.subarray(first, last))),
    realBuckets: round(bucketMean(real.total, real.good)),
  };
  const rule = tripRuleOf(r.row);
  if (rule !== undefined) {
    const start = SCENARIOS[r.scenario].faultStartMs;
    const open = r.firstOpenAfterFault;
    out.tripS = open === undefined ? null : (Math.floor(open / MODEL.bucketMs) * MODEL.bucketMs - start) / 1_000;
    const failed = settled.map((n, b) => n - answered[b]!);
    if (open !== undefined) out.tripErrorRate = round(windowErrorRate(settled, failed, rule, open));
    const formula = formulaTripMs(settled, failed, rule, start, r.durationMs);
    out.tripFormulaS = formula === undefined ? null : (formula - start) / 1_000;
  }
  const s = r.second;
  if (s !== undefined) {
    const other = perBucket(s, (i) => s.outcome[i] === Outcome.Real, from, to);
    out.otherReal = round(bucketMean(other.total, other.good));
    // both classes answered at once: the product of their shares per bucket, over buckets where both had requests
    let sum = 0;
    let n = 0;
    for (let b = 0; b < real.total.length; b++) {
      if (real.total[b]! === 0 || other.total[b]! === 0) continue;
      sum += (real.good[b]! / real.total[b]!) * (other.good[b]! / other.total[b]!);
      n++;
    }
    out.bothReal = round(n === 0 ? 1 : sum / n);
  }
  return out;
}
