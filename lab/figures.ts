import { rtoMaxAsPublished } from '../lib/sla.js';
import { BREAKER_FAMILY, rtoMaxS } from './recovery.js';
import { MODEL, SCENARIOS, type ExtraMetric, type Scenario } from './model.js';
import { ROWS } from './rows.js';
import { slaFigures, type SlaFigures } from './sla-figures.js';
import { Outcome, Source, type RunRecord } from './simulate.js';

/** The figures of one row in one scenario (strategies.md, "The lab"). Rates are shares in [0, 1]. */
export interface Figures {
  /** Share of requests answered (real or degraded), over the fault and the 60 s after it. */
  answered: number;
  /** Share answered by C, same window. */
  realSuccess: number;
  /** Share answered by C, during the fault alone. */
  realSuccessDuringFault: number;
  /** Share answered by C, after the fault alone (the rest of the window): how well it recovered. */
  realSuccessAfterFault: number;
  /** Latency at A over the window, ms. */
  p50Ms: number;
  p99Ms: number;
  /** p99 latency of the real answers alone (refusals and fallbacks left out), ms; null (∞) when there were none. */
  p99RealMs: number | null;
  /** Attempts offered to C during the fault ÷ requests A offered then. */
  amplification: number;
  /** Most calls in flight at B over the window. */
  peakInFlight: number;
  /** Seconds from the fault's end until 99 % of requests over a 5 s window get a real answer; null = ∞ (not within the run). */
  recoveryS: number | null;
  /** Share of the fault during which a breaker was not closed (0 for rows without one). */
  breakerOpenInFault: number;
  /** Each hop's availability and the end-to-end one, for the availability check (lab/sla-figures.ts). */
  sla?: SlaFigures;
  /** What the scenario and the row record beyond these (lab/seeds.ts, `EXTRA_METRICS`); null = ∞. */
  extra?: Partial<Record<ExtraMetric, number | null>>;
  /**
   * For breaker rows: `rtoMax` of breakwater/sla from the breaker's mechanics and the run's state at the fault's
   * end (s; null = ∞), its inputs, and the published formula's figure beside it (`rtoMaxAsPublished`).
   */
  rto?: {
    rtoMaxS: number | null;
    state: 'open' | 'half-open' | 'closed';
    openElapsedMs: number;
    backlog: number;
    recoveryRate: number;
    asPublishedS: number | null;
    errorLatencyMs: number | null;
  };
}

/** One series point per bucket, for the charts. */
export interface Series {
  /** Share of the bucket's requests answered by C. */
  realSuccess: number[];
  /** p99 latency at A of the bucket's requests, ms (refusals and fallbacks included). */
  p99Ms: number[];
  /** p99 latency at A of the bucket's real answers alone (answered by C), ms; null in a bucket with none. */
  p99RealMs: (number | null)[];
  /** Attempts offered to C per second. */
  cLoad: number[];
  /** Jobs C finished for a caller that had given up, per second. */
  wasted: number[];
  /** Jobs C held (queued or in service) at the bucket's end: its queue. */
  held: number[];
  /** Share of the bucket a breaker was not closed. */
  breakerOpen: number[];
}

const round = (x: number, digits = 4): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/** The scenario a run played, with the fault's end where the run had it (a `faultMs` override moves it). */
function scenarioOf(r: RunRecord): Scenario {
  const sc = SCENARIOS[r.scenario];
  return r.faultEndMs === undefined || r.faultEndMs === sc.faultEndMs ? sc : { ...sc, faultEndMs: r.faultEndMs };
}

/** Computes the figures and series of a run. */
export function figuresOf(r: RunRecord): { figures: Figures; series: Series } {
  const sc = scenarioOf(r);
  const from = sc.faultStartMs;
  const to = Math.min(r.durationMs, sc.faultEndMs + MODEL.afterFaultMs);
  const n = r.arrival.length;
  let total = 0;
  let answered = 0;
  let real = 0;
  let faultTotal = 0;
  let faultReal = 0;
  const lat: number[] = [];
  const realLat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = r.arrival[i]!;
    if (t < from || t >= to) continue;
    const o = r.outcome[i]!;
    total++;
    if (o !== Outcome.Failed) answered++;
    if (o === Outcome.Real) {
      real++;
      realLat.push(r.latency[i]!);
    }
    if (t < sc.faultEndMs) {
      faultTotal++;
      if (o === Outcome.Real) faultReal++;
    }
    lat.push(r.latency[i]!);
  }
  const sorted = Float64Array.from(lat).sort();
  const realSorted = Float64Array.from(realLat).sort();
  // amplification: attempts at C during the fault over requests offered then (whole buckets: faults start and end on seconds)
  let faultAttempts = 0;
  for (let b = Math.floor(from / MODEL.bucketMs); b < Math.floor(sc.faultEndMs / MODEL.bucketMs); b++) faultAttempts += r.attempts[b] ?? 0;
  const figures: Figures = {
    answered: round(answered / Math.max(1, total)),
    realSuccess: round(real / Math.max(1, total)),
    realSuccessDuringFault: round(faultReal / Math.max(1, faultTotal)),
    realSuccessAfterFault: round((real - faultReal) / Math.max(1, total - faultTotal)),
    p50Ms: round(quantile(sorted, 0.5), 1),
    p99Ms: round(quantile(sorted, 0.99), 1),
    p99RealMs: realSorted.length === 0 ? null : round(quantile(realSorted, 0.99), 1),
    amplification: round(faultAttempts / Math.max(1, faultTotal), 3),
    peakInFlight: r.peakInFlight,
    recoveryS: recovery(r, sc.faultEndMs),
    breakerOpenInFault: round(openShare(r, from, sc.faultEndMs), 3),
  };
  const measures = new Set<ExtraMetric>([...(sc.measures ?? []), ...ROWS[r.row].measures]);
  if (measures.size > 0) figures.extra = extraFigures(r, measures, from, to);
  const sla = slaFigures(r, from, to);
  if (sla !== undefined) figures.sla = sla;
  const family = BREAKER_FAMILY[r.row];
  if (ROWS[r.row].breaker && family !== undefined) {
    const recoveryRate = r.probes === 0 ? 1 : r.probesOk / r.probes;
    const errorLatencyMs = r.firstOpenAfterFault === undefined ? null : r.firstOpenAfterFault - from;
    const published = errorLatencyMs === null ? Infinity : rtoMaxAsPublished({ state: 'open', errorLatencyMs, recoveryRate });
    figures.rto = {
      rtoMaxS: rtoMaxS(r, family),
      state: r.atFaultEnd.state,
      openElapsedMs: round(r.atFaultEnd.openElapsedMs, 1),
      backlog: r.atFaultEnd.backlog,
      recoveryRate: round(recoveryRate),
      asPublishedS: Number.isFinite(published) ? round(published / 1_000, 2) : null,
      errorLatencyMs: errorLatencyMs === null ? null : round(errorLatencyMs, 1),
    };
  }
  return { figures, series: seriesOf(r) };
}

/** The figures of `measures` (lab/seeds.ts, `EXTRA_METRICS`) of a run whose window is [from, to). */
export function extraFigures(r: RunRecord, measures: ReadonlySet<ExtraMetric>, from: number, to: number): Partial<Record<ExtraMetric, number | null>> {
  const sc = scenarioOf(r);
  const out: Partial<Record<ExtraMetric, number | null>> = {};
  if (measures.has('healthyRealInFault')) {
    // the second class's requests that arrived during the fault, and how many of them got a real answer
    let total = 0;
    let real = 0;
    const s = r.second;
    for (let i = 0; s !== undefined && i < s.arrival.length; i++) {
      const t = s.arrival[i]!;
      if (t < sc.faultStartMs || t >= sc.faultEndMs) continue;
      total++;
      if (s.outcome[i] === Outcome.Real) real++;
    }
    out.healthyRealInFault = round(total === 0 ? 1 : real / total);
  }
  if (measures.has('duplicates')) out.duplicates = round(r.duplicates ?? 0);
  if (measures.has('backlogPeak')) out.backlogPeak = r.backlog?.peak ?? 0;
  if (measures.has('drainS')) {
    const at = r.backlog?.drainedAt;
    out.drainS = r.backlog === undefined ? 0 : at === undefined ? null : round((at - sc.faultEndMs) / 1_000, 1);
  }
  if (measures.has('drainPerS')) {
    // the writes queued at the fault's end, delivered per second until the queue was empty (or the run ended)
    const b = r.backlog;
    const until = b?.drainedAt ?? r.durationMs;
    const delivered = b === undefined ? 0 : b.drainedAt === undefined ? b.atFaultEnd - b.atEnd : b.atFaultEnd;
    out.drainPerS = until > sc.faultEndMs ? round(Math.max(0, delivered) / ((until - sc.faultEndMs) / 1_000), 1) : 0;
  }
  if (measures.has('replicaShare') || measures.has('defaultShare') || measures.has('staleAgeP50S')) {
    let total = 0;
    let replica = 0;
    let fallback = 0;
    const ages: number[] = [];
    for (let i = 0; i < r.arrival.length; i++) {
      const t = r.arrival[i]!;
      if (t < from || t >= to) continue;
      total++;
      const source = r.source?.[i];
      if (source === Source.Replica) replica++;
      if (source === Source.Default) fallback++;
      if (source === Source.Stale || source === Source.Replica) ages.push(r.age![i]!);
    }
    if (measures.has('replicaShare')) out.replicaShare = round(replica / Math.max(1, total));
    if (measures.has('defaultShare')) out.defaultShare = round(fallback / Math.max(1, total));
    if (measures.has('staleAgeP50S')) out.staleAgeP50S = round(quantile(Float64Array.from(ages).sort(), 0.5) / 1_000, 2);
  }
  if (measures.has('peakLoadPerS')) {
    // the busiest 10 ms of the fault at C, as attempts per second
    let peak = 0;
    const fine = r.attemptsPer10Ms;
    for (let k = Math.floor(sc.faultStartMs / 10); fine !== undefined && k < Math.floor(sc.faultEndMs / 10); k++) peak = Math.max(peak, fine[k] ?? 0);
    out.peakLoadPerS = peak * 100;
  }
  if (measures.has('clientAmplification')) {
    // how many times A's clients sent the requests that arrived during the fault, per request
    let total = 0;
    let sent = 0;
    for (let i = 0; i < r.arrival.length; i++) {
      const t = r.arrival[i]!;
      if (t < sc.faultStartMs || t >= sc.faultEndMs) continue;
      total++;
      sent += r.sends?.[i] ?? 1;
    }
    out.clientAmplification = round(sent / Math.max(1, total), 3);
  }
  return out;
}

/** The share of [from, to) during which a breaker was not closed (faults start and end on whole buckets). */
function openShare(r: RunRecord, from: number, to: number): number {
  let open = 0;
  const a = Math.floor(from / MODEL.bucketMs);
  const b = Math.floor(to / MODEL.bucketMs);
  for (let k = a; k < b; k++) open += Math.min(1, r.breakerOpen[k] ?? 0);
  return b > a ? open / (b - a) : 0;
}

/** Start of the first 5 s window (100 ms steps) from the fault's end in which ≥ 99 % of arriving requests got a real answer. */
function recovery(r: RunRecord, faultEnd: number): number | null {
  const step = 100;
  const slots = Math.ceil(r.durationMs / step);
  const total = new Uint32Array(slots);
  const real = new Uint32Array(slots);
  for (let i = 0; i < r.arrival.length; i++) {
    const s = Math.floor(r.arrival[i]! / step);
    total[s]!++;
    if (r.outcome[i] === Outcome.Real) real[s]!++;
  }
  const width = 5_000 / step;
  for (let s = Math.floor(faultEnd / step); s + width <= slots; s++) {
    let t = 0;
    let ok = 0;
    for (let k = s; k < s + width; k++) {
      t += total[k]!;
      ok += real[k]!;
    }
    if (t > 0 && ok >= 0.99 * t) return round((s * step - faultEnd) / 1_000, 1);
  }
  return null;
}

function seriesOf(r: RunRecord): Series {
  const buckets = Math.ceil(r.durationMs / MODEL.bucketMs);
  const perBucket: number[][] = Array.from({ length: buckets }, () => []);
  const realPerBucket: number[][] = Array.from({ length: buckets }, () => []);
  const total = new Uint32Array(buckets);
  const real = new Uint32Array(buckets);
  for (let i = 0; i < r.arrival.length; i++) {
    const b = Math.floor(r.arrival[i]! / MODEL.bucketMs);
    total[b]!++;
    if (r.outcome[i] === Outcome.Real) {
      real[b]!++;
      realPerBucket[b]!.push(r.latency[i]!);
    }
    perBucket[b]!.push(r.latency[i]!);
  }
  const perSecond = 1_000 / MODEL.bucketMs;
  return {
    realSuccess: Array.from(total, (t, b) => round(t === 0 ? 1 : real[b]! / t, 3)),
    p99Ms: perBucket.map((l) => round(quantile(Float64Array.from(l).sort(), 0.99), 1)),
    p99RealMs: realPerBucket.map((l) => (l.length === 0 ? null : round(quantile(Float64Array.from(l).sort(), 0.99), 1))),
    cLoad: Array.from({ length: buckets }, (_, b) => r.attempts[b]! * perSecond),
    wasted: Array.from({ length: buckets }, (_, b) => r.wasted[b]! * perSecond),
    held: Array.from(r.held.subarray(0, buckets)),
    breakerOpen: Array.from({ length: buckets }, (_, b) => round(Math.min(1, r.breakerOpen[b]!), 3)),
  };
}
