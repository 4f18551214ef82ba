import { describe, expect, it } from 'vitest';
import { TestClock } from '../../lib/testing.js';
import { LabClock } from '../../lab/clock.js';
import { figuresOf, type Figures } from '../../lab/figures.js';
import type { ScenarioName } from '../../lab/model.js';
import type { RowName } from '../../lab/rows.js';
import { simulate, type RunRecord, type SimulationClock } from '../../lab/simulate.js';

/** `TestClock` as a simulation clock: `run(until)` is `advanceTo(until)`, which settles promises after every timer. */
class TestClockRun extends TestClock implements SimulationClock {
  fired = 0;
  override setTimeout(fn: () => void, ms: number) {
    return super.setTimeout(() => {
      this.fired++;
      fn();
    }, ms);
  }
  run(until: number): Promise<void> {
    return this.advanceTo(until);
  }
}

const SEED = 3;
const DURATION_MS = 36_000; // the fault starts at 30 s: six seconds of it
const cases: [RowName, ScenarioName][] = [
  ['naiveRetry', 'hardOutage'],
  ['standard', 'flapping'],
  ['guardedRetry', 'capacityDrop'],
];

const perRequest = (r: RunRecord) => ({ outcome: Array.from(r.outcome), latency: Array.from(r.latency), attempts: Array.from(r.attempts), });

/** Figures that differ by more than the lab clock's 1 ms slot can explain (rates 1 pp, latencies 5 % or 1 ms, load 0.05, B's peak 10 % or 2). */
function apart(a: Figures, b: Figures): string[] {
  const out: string[] = [];
  const rate = (k: 'answered' | 'realSuccess' | 'realSuccessDuringFault') => Math.abs(a[k] - b[k]) > 0.01 && out.push(k);
  rate('answered');
  rate('realSuccess');
  rate('realSuccessDuringFault');
  for (const k of ['p50Ms', 'p99Ms'] as const) if (Math.abs(a[k] - b[k]) > Math.max(1, 0.05 * Math.max(a[k], b[k]))) out.push(k);
  if (Math.abs(a.amplification - b.amplification) > 0.05) out.push('amplification');
  if (Math.abs(a.peakInFlight - b.peakInFlight) > Math.max(2, 0.1 * Math.max(a.peakInFlight, b.peakInFlight))) out.push('peakInFlight');
  if (a.recoveryS !== b.recoveryS && (a.recoveryS === null || b.recoveryS === null || Math.abs(a.recoveryS - b.recoveryS) > 1)) out.push('recoveryS');
  return out;
}

// The lab's clock trades TestClock's settling after every timer for one drain per 1 ms slot, to be fast.
describe('the lab clock and TestClock on a short run', () => {
  it.each(cases)('%s in %s: the same run request by request with no slot, the same figures with the lab’s 1 ms slot', async (row, scenario) => {
    const test = await simulate(row, scenario, SEED, DURATION_MS, (start) => new TestClockRun(start));
    const exact = await simulate(row, scenario, SEED, DURATION_MS, (start) => new LabClock(start, 0));
    const lab = await simulate(row, scenario, SEED, DURATION_MS);
    expect(test.arrival.length).toBeGreaterThan(6_000);
    expect({ ...perRequest(exact), timers: exact.timers }).toEqual({ ...perRequest(test), timers: test.timers });
    expect(figuresOf(exact)).toEqual(figuresOf(test));
    // with the slot, events of one millisecond see each other's effects a little late: close, not equal
    expect(apart(figuresOf(lab).figures, figuresOf(test).figures)).toEqual([]);
  }, 120_000);
});

describe('the lab clock between slots', () => {
  it('lets a chain of promise callbacks of any length settle before a later slot starts, in every slot of a long run', async () => {
    const clock = new LabClock(0);
    const seen: number[] = [];
    const slots = 3_000; // past the drains after which one is a full event-loop turn
    for (let k = 1; k <= slots; k++) {
      let settled = -1;
      clock.setTimeout(() => {
        // a chain whose end is queued only after the promise callbacks before it have run
        let p = Promise.resolve(0);
        for (let i = 0; i < (k % 100) + 1; i++) p = p.then((n) => n + 1);
        void p.then((n) => (settled = n));
      }, k);
      clock.setTimeout(() => seen.push(settled === (k % 100) + 1 ? 1 : 0), k + 1);
    }
    await clock.run(slots + 10);
    expect(seen).toHaveLength(slots);
    expect(seen.every((ok) => ok === 1)).toBe(true);
  });

  it('fires the timers of one slot back to back: their callbacks settle after the slot', async () => {
    const clock = new LabClock(0, 10);
    const order: string[] = [];
    clock.setTimeout(() => void Promise.resolve().then(() => order.push('callback of 1')), 1);
    clock.setTimeout(() => order.push('timer 5'), 5);
    clock.setTimeout(() => order.push('timer 12'), 12);
    await clock.run(20);
    expect(order).toEqual(['timer 5', 'callback of 1', 'timer 12']);
  });
});
