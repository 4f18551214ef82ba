import { describe, expect, it } from 'vitest';
import { REPLICA } from '../../lab/dependency.js';
import { MODEL, SCENARIOS } from '../../lab/model.js';
import { Outcome, simulate, Source, type ClassRecord } from '../../lab/simulate.js';

// Short runs of the focused scenarios: 40 s, the fault from 30 s on.
const SHORT = 40_000;
const inFault = (c: ClassRecord, what: (i: number) => boolean): { total: number; hits: number } => {
  let total = 0;
  let hits = 0;
  for (let i = 0; i < c.arrival.length; i++) {
    if (c.arrival[i]! < 30_000) continue;
    total++;
    if (what(i)) hits++;
  }
  return { total, hits };
};

describe('a run of a focused scenario', () => {
  it('double submits: the baseline applies a resubmitted write twice, idempotentRetry once', async () => {
    const baseline = await simulate('baseline', 'duplicates', 1, SHORT);
    const idempotent = await simulate('idempotentRetry', 'duplicates', 1, SHORT);
    // about 30 % of the keys are sent twice, and most of both submits succeed
    expect(baseline.duplicates).toBeGreaterThan(0.2);
    expect(baseline.duplicates).toBeLessThan(0.3);
    expect(idempotent.duplicates).toBe(0);
  }, 60_000);

  it('B’s other traffic: a second class on B’s threads, starved by a deadline-blind client of a hanging C, not by failFast', async () => {
    const naive = await simulate('naiveRetry', 'hanging', 1, SHORT);
    const failFast = await simulate('failFast', 'hanging', 1, SHORT);
    const rate = SCENARIOS.hanging.second!.perSecond;
    expect(naive.second!.arrival.length).toBeGreaterThan(0.9 * rate * (SHORT / 1_000));
    expect(naive.second!.arrival.length).toBeLessThan(1.1 * rate * (SHORT / 1_000));
    // the same arrivals in both runs (common random numbers)
    expect(failFast.second!.arrival).toEqual(naive.second!.arrival);
    const real = (r: typeof naive) => inFault(r.second!, (i) => r.second!.outcome[i] === Outcome.Real);
    expect(real(naive).hits / real(naive).total).toBeLessThan(0.9);
    expect(real(failFast).hits).toBe(real(failFast).total);
  }, 60_000);

  it('a cold cache: fallbackChain answers from the replica, its data as old as the replica’s lag', async () => {
    const r = await simulate('fallbackChain', 'coldCache', 1, SHORT);
    const replica = inFault(r, (i) => r.source![i] === Source.Replica);
    expect(replica.hits / replica.total).toBeGreaterThan(0.9);
    // served as soon as the replica answers: within the lab clock's 1 ms slot
    for (let i = 0; i < r.arrival.length; i++) if (r.source![i] === Source.Replica) expect(r.age![i]! - REPLICA.lagMs).toSatisfy((x: number) => x >= 0 && x < 1);
    expect(inFault(r, (i) => r.source![i] === Source.Default).hits).toBe(0);
  }, 60_000);

  it('a writer records its backlog: queued while C is down, not drained before the fault ends', async () => {
    const r = await simulate('writeBehind', 'hardOutage', 1, SHORT);
    // 10 s of the outage at 200 writes/s, each queued once the breaker sheds it
    expect(r.backlog!.peak).toBeGreaterThan(1_500);
    expect(r.backlog!.peak).toBeLessThanOrEqual(10 * MODEL.offeredPerSecond * 1.1);
    expect(r.backlog!.drainedAt).toBeUndefined();
    expect(r.duplicates).toBe(0);
  }, 60_000);

  it('is the same for the same seed', async () => {
    const a = await simulate('standard', 'methodSick', 2, SHORT);
    const b = await simulate('standard', 'methodSick', 2, SHORT);
    expect(b.outcome).toEqual(a.outcome);
    expect(b.latency).toEqual(a.latency);
    expect(b.second!.outcome).toEqual(a.second!.outcome);
  }, 60_000);
});

describe('a run of the waves scenario (C down during waves, clients retrying)', () => {
  const SHORT_WAVES = 40_000;
  // the busiest 10 ms at C from 32 s, when the clients' second tries of the first waves come
  const busiest = (r: { attemptsPer10Ms?: Float64Array }): number => Math.max(...r.attemptsPer10Ms!.subarray(3_200, 4_000));

  it('A’s clients send a failed request again after 1 s, twice at most; a fallback’s answer ends their retries', async () => {
    const baseline = await simulate('baseline', 'waves', 1, SHORT_WAVES);
    const standard = await simulate('standard', 'waves', 1, SHORT_WAVES);
    const { tries } = SCENARIOS.waves.clientRetries!;
    const sent = (r: typeof baseline, from: number, to: number): number[] => {
      const out: number[] = [];
      for (let i = 0; i < r.arrival.length; i++) if (r.arrival[i]! >= from && r.arrival[i]! < to) out.push(r.sends![i]!);
      return out;
    };
    // C is down: every request of the fault's first 5 s fails each time, so it is sent 1 + 2 times (from the second
    // wave on: the first, at the fault's very start, may reach C in the last instant before it goes down)
    expect(new Set(sent(baseline, 30_100, 35_000))).toEqual(new Set([1 + tries]));
    for (let i = 0; i < baseline.arrival.length; i++) if (baseline.arrival[i]! >= 30_100 && baseline.arrival[i]! < 35_000) expect(baseline.outcome[i]).toBe(Outcome.Failed);
    // before the fault nothing fails: sent once
    expect(new Set(sent(baseline, 0, 29_000))).toEqual(new Set([1]));
    // a fallback answers: nothing to send again
    expect(new Set(sent(standard, 30_100, 35_000))).toEqual(new Set([1]));
  }, 60_000);

  it('naiveRetry’s three tries land in the wave’s 10 ms; boundedRetry’s jittered ones do not', async () => {
    const baseline = await simulate('baseline', 'waves', 1, SHORT_WAVES);
    const naive = await simulate('naiveRetry', 'waves', 1, SHORT_WAVES);
    const bounded = await simulate('boundedRetry', 'waves', 1, SHORT_WAVES);
    const { size } = SCENARIOS.waves.waves!;
    // the wave and the second tries of the clients of a wave 2 s earlier land together: about twice the wave at C
    // (a request or two of a wave may fall in the 10 ms before it: the lab clock's timers sum float delays)
    expect(busiest(baseline)).toBeGreaterThan(1.9 * size);
    expect(busiest(baseline)).toBeLessThanOrEqual(2 * size);
    // three tries each, at once
    expect(busiest(naive)).toBeGreaterThan(2.9 * busiest(baseline));
    expect(busiest(naive)).toBeLessThanOrEqual(3 * 2 * size);
    expect(busiest(bounded)).toBeLessThan(busiest(baseline));
  }, 60_000);
});
