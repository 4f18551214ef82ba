import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { seededRandom, TestClock } from '../../lib/testing.js';
import { soak } from './soak.js';

/** `gc()` without --expose-gc on the command line. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

/** `npm test` runs 10,000 calls; `npm run soak` sets SOAK_CALLS=100000. */
const CALLS = Number(process.env.SOAK_CALLS ?? 10_000);
/** Heap growth allowed after GC: small against what a leak of even 100 bytes per call would show. */
const HEAP_BOUND = 4 * 1024 * 1024;

describe('soak', () => {
  it(`${CALLS} mixed calls through every policy leave no timer, no listener and no heap growth (TestClock)`, { timeout: 600_000 }, async () => {
    const clock = new TestClock(1_700_000_000_000);
    const advance = (ms: number) => clock.advance(ms);
    // warm up (JIT, lazily made structures), then measure
    await soak({ calls: 2_000, clock, random: seededRandom(1), advance });
    await clock.advance(10_000);
    const before = await heapAfterGc();
    const r = await soak({ calls: CALLS, clock, random: seededRandom(2026), advance });
    await clock.advance(10_000);
    const after = await heapAfterGc();
    const delta = after - before;
    console.log(`soak: ${r.calls} calls, ${r.ok} ok, ${r.failed} failed; heap ${(before / 1048576).toFixed(1)} MiB -> ${(after / 1048576).toFixed(1)} MiB (delta ${(delta / 1024).toFixed(0)} KiB)`);
    expect(r.settled).toBe(CALLS);
    expect(r.ok).toBeGreaterThan(CALLS / 10);
    expect(r.failed).toBeGreaterThan(CALLS / 10);
    expect(clock.pendingTimers).toBe(0);
    expect(r.listenersLeft).toBe(0);
    expect(delta).toBeLessThan(HEAP_BOUND);
  });

  it('a short run on the system clock leaves no active timer', { timeout: 60_000 }, async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const { systemClock } = await import('../../lib/index.js');
    const r = await soak({
      calls: 700,
      clock: systemClock,
      random: seededRandom(7),
      // timeouts of a few ms: every duration in the pipelines is scaled by `ms` (0.1 → 50 ms becomes 5 ms)
      ms: 0.1,
      batch: 70,
      advance: (ms) => new Promise((r) => setTimeout(r, ms)),
    });
    expect(r.settled).toBe(700);
    expect(r.listenersLeft).toBe(0);
    // the last timers (retry-after of caller aborts in the last batch) end within their own few ms
    await new Promise((r) => setTimeout(r, 30));
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
