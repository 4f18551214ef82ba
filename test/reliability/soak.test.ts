import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { seededRandom, TestClock } from '../../lib/testing.js';
import { soak } from './soak.js';

// gc() without --expose-gc on the command line. And no optimising compiler in this file's process (each test file
// has its own): optimised code, its deopt data and feedback grow and shrink by hundreds of KiB as functions tier up,
// which would drown a leak of a few bytes a call; unoptimised and warm, the heap after GC moves by a few KiB.
setFlagsFromString('--expose-gc');
setFlagsFromString('--no-opt');
const gc = runInNewContext('gc') as () => void;

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

/** Theil–Sen: the median of the slopes between every two points, which one odd reading cannot move. */
function medianSlope(points: readonly (readonly [number, number])[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) slopes.push((points[j]![1] - points[i]![1]) / (points[j]![0] - points[i]![0]));
  slopes.sort((a, b) => a - b);
  const m = slopes.length >> 1;
  return slopes.length % 2 === 1 ? slopes[m]! : (slopes[m - 1]! + slopes[m]!) / 2;
}

/** `npm test` runs 10,000 calls; `npm run soak` sets SOAK_CALLS=100000. */
const CALLS = Number(process.env.SOAK_CALLS ?? 10_000);
/**
 * Heap growth allowed per call, once warm: a leak of 100 bytes a call (a retained 100-character string and its slot)
 * grows the heap by about 120; a healthy run by a few.
 */
const BYTES_PER_CALL = 32;
/** Heap readings during the run, each after a quiet spell of virtual time so that windows, leases and queues drain. */
const CHECKPOINTS = 10;
const QUIET_MS = 10_000;

describe('soak', () => {
  it(`${CALLS} mixed calls through every policy all settle and leave no timer, no listener and no heap growth per call (TestClock)`, { timeout: 600_000 }, async () => {
    const clock = new TestClock(1_700_000_000_000);
    const advance = (ms: number) => clock.advance(ms);
    // warm up: compiled code and the structures made once
    await soak({ calls: 2_000, clock, random: seededRandom(1), advance });
    const heap: [number, number][] = [];
    const r = await soak({
      calls: CALLS,
      clock,
      random: seededRandom(2026),
      advance,
      checkpointEvery: CALLS / CHECKPOINTS,
      checkpoint: async (done) => {
        await clock.advance(QUIET_MS);
        heap.push([done, await heapAfterGc()]);
      },
    });
    const slope = medianSlope(heap);
    const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
    console.log(
      `soak: ${r.settled} of ${r.calls} calls settled (${r.ok} ok, ${r.failed} failed), ${r.writesSettled} of ${r.writes} writes; ` +
        `heap ${heap.map(([, h]) => kib(h - heap[0]![1])).join(' ')} after each ${CALLS / CHECKPOINTS} calls: ${slope.toFixed(1)} bytes a call`,
    );
    expect(r.hung, `calls still pending after their batch, by pipeline: ${JSON.stringify(r.hung)}`).toEqual({});
    expect(r.settled).toBe(CALLS);
    expect(r.writesSettled).toBe(r.writes);
    expect(r.ok).toBeGreaterThan(CALLS / 10);
    expect(r.failed).toBeGreaterThan(CALLS / 10);
    expect(clock.pendingTimers).toBe(0);
    expect(r.listenersLeft).toBe(0);
    expect(heap).toHaveLength(CHECKPOINTS);
    expect(slope, 'heap growth per call').toBeLessThan(BYTES_PER_CALL);
  });

  it('a short run on the system clock: every call settles, and no timer stays armed', { timeout: 120_000 }, async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const { systemClock } = await import('../../api/index.js');
    const r = await soak({
      calls: 700,
      clock: systemClock,
      random: seededRandom(7),
      // timeouts of a few ms: every duration in the pipelines is scaled by `ms` (0.1 → 50 ms becomes 5 ms)
      ms: 0.1,
      batch: 70,
      advance: (ms) => new Promise((r) => setTimeout(r, ms)),
      // a loaded machine runs timers late: a batch's stragglers get seconds, not the batch's 40 ms
      patience: (all) =>
        new Promise((resolve) => {
          const t = setTimeout(resolve, 10_000);
          void all.then(() => (clearTimeout(t), resolve(undefined)));
        }),
    });
    expect(r.hung, `calls still pending after their batch, by pipeline: ${JSON.stringify(r.hung)}`).toEqual({});
    expect(r.settled).toBe(700);
    expect(r.writesSettled).toBe(r.writes);
    expect(r.listenersLeft).toBe(0);
    // the last timers (caller aborts and retry sleeps of the last batch, leases of a few ms) end on their own;
    // a leaked one (a lease, a ttl or an interval left armed) is still there seconds later
    const until = Date.now() + 5_000;
    while (timers() > before && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
