import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotent, isIdempotencyResultNotStorableError, memoryStore } from '../../../api/index.js';
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

type Caller = { at: number; instance: number; dur: number; fail: boolean; unstorable: boolean; abortAfter: number | undefined };

/** What one caller got: a value, an error, or its own abort reason. */
type Answer = { at: number; kind: 'value'; value: string } | { at: number; kind: 'error'; error: unknown } | { at: number; kind: 'abandoned' };

/** Three instances sharing one memory store, one key; each operation ignores its signal. */
async function drive(callers: Caller[]) {
  const clock = new TestClock(START);
  const store = memoryStore({ clock });
  const instances = [0, 1, 2].map(() => idempotent({ clock, store, leaseMs: 1_000, pollMs: 7 }));
  let running = 0;
  let overlap = false;
  let storedAt = Infinity;
  let unstorable = false;
  let runsAfterStored = 0;
  const successes = new Set<string>();
  const failures = new Set<string>();
  const answers: Answer[] = [];
  const outcomes: Promise<void>[] = [];
  let n = 0;
  callers.forEach((c, i) => {
    clock.setTimeout(() => {
      const ac = new AbortController();
      if (c.abortAfter !== undefined) clock.setTimeout(() => ac.abort(new Error('caller left')), c.abortAfter);
      const at = clock.now();
      const p = instances[c.instance]!.execute(
        async () => {
          const run = `run ${++n}`;
          if (clock.now() > storedAt) runsAfterStored++;
          if (running > 0) overlap = true;
          running++;
          // ignores its signal: an abandoned run still must not overlap the next
          await new Promise<void>((r) => clock.setTimeout(r, c.dur));
          running--;
          if (c.fail) {
            failures.add(`${run} failed`);
            throw new Error(`${run} failed`);
          }
          successes.add(run);
          if (clock.now() < storedAt) unstorable = c.unstorable;
          storedAt = Math.min(storedAt, clock.now());
          return c.unstorable ? { run, gone: undefined } : { run };
        },
        { key: 'k', signal: ac.signal },
      );
      outcomes.push(
        p.then(
          (value) => void (answers[i] = { at, kind: 'value', value: value.run }),
          (error: unknown) => void (answers[i] = error === ac.signal.reason && ac.signal.aborted ? { at, kind: 'abandoned' } : { at, kind: 'error', error }),
        ),
      );
    }, c.at);
  });
  await clock.runAll();
  await Promise.all(outcomes);
  expect(clock.pendingTimers).toBe(0);
  return { overlap, runsAfterStored, successes, failures, answers, storedAt, unstorable };
}

describe('idempotent (properties)', () => {
  it('runs of a key never overlap, nothing runs after a recorded success (storable or not), and callers get only successful runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caller, { minLength: 1, maxLength: 25 }), async (callers) => {
        const { overlap, runsAfterStored, successes, answers } = await drive(callers);
        expect(overlap).toBe(false);
        expect(runsAfterStored).toBe(0);
        expect(successes.size).toBeLessThanOrEqual(1);
        for (const a of answers) if (a.kind === 'value') expect(successes.has(a.value)).toBe(true);
      }),
      { numRuns: runs(200) },
    );
  });

  it("answers every caller that stays: with a run's result or that run's error, and after a success with that success", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caller, { minLength: 1, maxLength: 25 }), async (callers) => {
        const { successes, failures, answers, storedAt, unstorable } = await drive(callers);
        const [stored] = successes;
        answers.forEach((a, i) => {
          if (a.kind === 'abandoned') return;
          // arriving after the success was recorded, a caller is served it, or told it cannot be
          if (a.at > storedAt && unstorable) {
            expect(a.kind === 'error' && isIdempotencyResultNotStorableError(a.error), `caller ${i} came after the unstorable success`).toBe(true);
            return;
          }
          // a caller that did not share the unstorable run itself (another instance polling) is told so too
          if (a.kind === 'error' && unstorable && isIdempotencyResultNotStorableError(a.error)) return;
          if (a.kind === 'error') expect(failures.has((a.error as Error).message), `caller ${i} got ${String(a.error)}`).toBe(true);
          if (a.at > storedAt) expect(a, `caller ${i} came after the stored success`).toEqual({ at: a.at, kind: 'value', value: stored });
        });
        // a caller that never leaves always gets an answer tied to some run: something ran
        if (callers.some((c) => c.abortAfter === undefined)) expect(successes.size + failures.size).toBeGreaterThan(0);
      }),
      { numRuns: runs(200) },
    );
  });
});
