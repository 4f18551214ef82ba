import { describe, expect, it } from 'vitest';
import { extraFigures, figuresOf } from '../../lab/figures.js';
import { MODEL } from '../../lab/model.js';
import { Outcome, Source, type RunRecord } from '../../lab/simulate.js';
import { lastJobMs, sumQuantileMs } from '../../lab/recovery.js';

/** A synthetic run of the capacity-drop scenario (fault 30–60 s): one request every 10 ms, real unless `failed(t)`. */
function record(failed: (t: number) => boolean, row: RunRecord['row'] = 'baseline'): RunRecord {
  const durationMs = 180_000;
  const n = durationMs / 10;
  const arrival = Float64Array.from({ length: n }, (_, i) => i * 10);
  const outcome = Uint8Array.from(arrival, (t) => (failed(t) ? Outcome.Failed : Outcome.Real));
  const buckets = durationMs / 1_000 + 1;
  const attempts = new Float64Array(buckets).fill(100);
  for (let b = 30; b < 60; b++) attempts[b] = 300; // 3 attempts per request during the fault
  return {
    row,
    scenario: 'capacityDrop',
    durationMs,
    model: MODEL,
    arrival,
    latency: Float64Array.from(arrival, (_, i) => i % 100),
    outcome,
    attempts,
    wasted: new Float64Array(buckets),
    held: new Float64Array(buckets),
    breakerOpen: new Float64Array(buckets),
    peakInFlight: 42,
    firstOpenAfterFault: row === 'standard' ? 32_000 : undefined,
    probes: 10,
    probesOk: 5,
    timers: 0,
    atFaultEnd: { state: 'open', openElapsedMs: 40, backlog: 50 },
  };
}

describe('figures', () => {
  it('measures rates over the fault and the 60 s after it, and amplification over the fault', () => {
    const { figures } = figuresOf(record((t) => t >= 30_000 && t < 60_000));
    expect(figures.realSuccessDuringFault).toBe(0);
    expect(figures.realSuccess).toBe(0.6667); // 60 of 90 s
    expect(figures.answered).toBe(0.6667);
    expect(figures.amplification).toBe(3);
    expect(figures.p50Ms).toBe(49);
    expect(figures.p99Ms).toBe(98);
    expect(figures.recoveryS).toBe(0);
    expect(figures.rto).toBeUndefined();
  });

  it('recovery: the start of the first 5 s window with 99 % real answers after the fault; null when none', () => {
    expect(figuresOf(record((t) => t >= 30_000 && t < 72_300)).figures.recoveryS).toBe(12.3);
    // one failure in 50 per window stays under 99 %: never recovers
    expect(figuresOf(record((t) => t >= 30_000 && t % 500 === 0)).figures.recoveryS).toBeNull();
  });

  it('feeds rtoMax with the breaker’s mechanics and the state at the fault’s end, the published formula beside it', () => {
    const { figures } = figuresOf(record((t) => t >= 30_000 && t < 60_000, 'standard'));
    // the adaptive breaker in the model: its ramp (a 100 ms gap to the first probe at 5 % of 200/s, then 25 ms and
    // 6.25 ms at 20 % and 80 %, each probe answered in 20 ms on average) at its 90th percentile, after C drains its
    // 50 jobs at 300/s behind the last of the 3 jobs in service in the capacity drop (at 90 %).
    const round = sumQuantileMs([100, 20, 25, 20, 6.25, 20]);
    const ms = lastJobMs(3, 20) + (50 / 300) * 1_000 + round;
    expect(figures.rto).toEqual({
      rtoMaxS: Math.round(ms / 10) / 100,
      state: 'open',
      openElapsedMs: 40,
      backlog: 50,
      recoveryRate: 0.5,
      // open: 6000 + 2000 / (1 − 0.5³)
      asPublishedS: 8.29,
      errorLatencyMs: 2000,
    });
  });
});

describe('figures apart: after the fault, and the real answers alone', () => {
  it('splits real success into during and after the fault, and takes the p99 of real answers alone', () => {
    // failed during the fault and for the first 12.3 s after it, each failure after 500 ms (the real answers: 0–99 ms)
    const r = record((t) => t >= 30_000 && t < 72_300);
    r.outcome.forEach((o, i) => o === Outcome.Failed && (r.latency[i] = 500));
    const { figures, series } = figuresOf(r);
    expect(figures.realSuccessDuringFault).toBe(0);
    // after the fault: 60 s window, the first 12.3 s failed
    expect(figures.realSuccessAfterFault).toBeCloseTo((60_000 - 12_300) / 60_000, 3);
    expect(figures.realSuccess).toBeCloseTo((60_000 - 12_300) / 90_000, 3);
    // the p99 of every request is a failure's; the real answers' leaves them out
    expect(figures.p99Ms).toBe(500);
    expect(figures.p99RealMs).toBe(99);
    expect(series.p99RealMs[40]).toBeNull();
    expect(series.p99RealMs[10]).not.toBeNull();
    expect(series.held).toHaveLength(series.realSuccess.length);
  });
});

describe('the figures a scenario or a row records beyond the common ones', () => {
  it('the second class’s real answers during the fault, the duplicates, and a writer’s backlog and drain', () => {
    const r = record(() => false);
    const arrival = Float64Array.from({ length: 100 }, (_, i) => i * 1_000); // one request a second, 0–99 s
    const outcome = Uint8Array.from(arrival, (t) => (t >= 30_000 && t < 36_000 ? Outcome.Failed : Outcome.Real));
    const backlog = { peak: 1_234, atFaultEnd: 1_000, atEnd: 0, drainedAt: 72_500 };
    const run: RunRecord = { ...r, second: { arrival, latency: new Float64Array(100), outcome }, duplicates: 0.123456, backlog };
    const all = new Set(['healthyRealInFault', 'duplicates', 'backlogPeak', 'drainS', 'drainPerS'] as const);
    // 6 of the 30 requests of the fault (30–59 s) failed; 1,000 writes delivered in the 12.5 s after the fault (60 s)
    expect(extraFigures(run, all, 30_000, 120_000)).toEqual({ healthyRealInFault: 0.8, duplicates: 0.1235, backlogPeak: 1_234, drainS: 12.5, drainPerS: 80 });
    // not drained within the run (180 s): 6,000 queued at the fault's end, 600 left at the end: 5,400 in 120 s
    const undrained = { ...run, backlog: { peak: 6_000, atFaultEnd: 6_000, atEnd: 600, drainedAt: undefined } };
    expect(extraFigures(undrained, new Set(['drainS', 'drainPerS'] as const), 30_000, 120_000)).toEqual({ drainS: null, drainPerS: 45 });
  });

  it('where degraded answers came from and how old they were, over the window', () => {
    const r = record(() => false);
    const n = r.arrival.length;
    // in the window (30–120 s): every 10th request from the replica (2 s old), every 10th + 1 the default, every 10th + 2 stale (20 s old)
    const source = Uint8Array.from(r.arrival, (t, i) => (t < 30_000 || t >= 120_000 ? Source.Fresh : i % 10 === 0 ? Source.Replica : i % 10 === 1 ? Source.Default : i % 10 === 2 ? Source.Stale : Source.Fresh));
    const age = Float64Array.from({ length: n }, (_, i) => (source[i] === Source.Replica ? 2_000 : source[i] === Source.Stale ? 20_000 : NaN));
    const f = extraFigures({ ...r, source, age }, new Set(['replicaShare', 'defaultShare', 'staleAgeP50S'] as const), 30_000, 120_000);
    // as many replica answers as stale ones: the median age is the lower of the two middle values
    expect(f).toEqual({ replicaShare: 0.1, defaultShare: 0.1, staleAgeP50S: 2 });
  });

  it('C’s busiest 10 ms of the fault, per second, and how many times A’s clients sent the fault’s requests', () => {
    const r: RunRecord = { ...record(() => false), scenario: 'waves' };
    const attemptsPer10Ms = new Float64Array(18_001);
    attemptsPer10Ms[2_000] = 900; // at 20 s: before the fault, not counted
    attemptsPer10Ms[3_000] = 160; // at 30 s
    attemptsPer10Ms[4_500] = 240; // at 45 s: the busiest of the fault
    attemptsPer10Ms[6_000] = 500; // at 60 s: after it
    // one request every 10 ms: those of the fault (30–60 s) sent three times each, one in ten
    const sends = Uint8Array.from(r.arrival, (t, i) => (t >= 30_000 && t < 60_000 && i % 10 === 0 ? 3 : 1));
    const f = extraFigures({ ...r, attemptsPer10Ms, sends }, new Set(['peakLoadPerS', 'clientAmplification'] as const), 30_000, 120_000);
    expect(f).toEqual({ peakLoadPerS: 24_000, clientAmplification: 1.2 });
    // a run whose clients do not retry sends each request once
    expect(extraFigures(r, new Set(['clientAmplification'] as const), 30_000, 120_000)).toEqual({ clientAmplification: 1 });
  });
});
