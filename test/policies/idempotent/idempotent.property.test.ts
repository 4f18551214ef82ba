import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotent, memoryStore } from '../../../lib/index.js';
import { TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

const caller = fc.record({
  at: fc.integer({ min: 0, max: 300 }),
  instance: fc.integer({ min: 0, max: 2 }),
  dur: fc.integer({ min: 0, max: 80 }),
  fail: fc.boolean(),
  // succeeds with a result JSON cannot keep: the run is recorded, with nothing to serve
  unstorable: fc.boolean(),
  abortAfter: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
});

describe('idempotent (properties)', () => {
  it('runs of a key never overlap, nothing runs after a recorded success (storable or not), and callers get only successful runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caller, { minLength: 1, maxLength: 25 }), async (callers) => {
        const clock = new TestClock(START);
        const store = memoryStore({ clock });
        const instances = [0, 1, 2].map(() => idempotent({ clock, store, leaseMs: 1_000, pollMs: 7 }));
        let running = 0;
        let overlap = false;
        let storedAt = Infinity;
        let runsAfterStored = 0;
        const successes = new Set<string>();
        const outcomes: Promise<void>[] = [];
        let n = 0;
        callers.forEach((c) => {
          clock.setTimeout(() => {
            const ac = new AbortController();
            if (c.abortAfter !== undefined) clock.setTimeout(() => ac.abort(new Error('caller left')), c.abortAfter);
            const p = instances[c.instance]!.execute(
              async () => {
                const run = `run ${++n}`;
                if (clock.now() > storedAt) runsAfterStored++;
                if (running > 0) overlap = true;
                running++;
                // ignores its signal: an abandoned run still must not overlap the next
                await new Promise<void>((r) => clock.setTimeout(r, c.dur));
                running--;
                if (c.fail) throw new Error(`${run} failed`);
                successes.add(run);
                storedAt = Math.min(storedAt, clock.now());
                return c.unstorable ? { run, gone: undefined } : { run };
              },
              { key: 'k', signal: ac.signal },
            );
            outcomes.push(
              p.then(
                (v) => {
                  expect(successes.has(v.run)).toBe(true);
                },
                () => undefined,
              ),
            );
          }, c.at);
        });
        await clock.runAll();
        await Promise.all(outcomes);
        expect(overlap).toBe(false);
        expect(runsAfterStored).toBe(0);
        expect(successes.size).toBeLessThanOrEqual(1);
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: runs(200) },
    );
  });
});
