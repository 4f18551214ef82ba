import { pipe } from '../../../lib/pipe.js';
import type { Policy } from '../../../lib/policy.js';
import { TestClock } from '../../../lib/testing.js';
import { constant, retry } from '../../../policies/retry/index.js';
import { TestBreaker } from './test-breaker.js';
import { work } from './clock-work.js';

/**
 * A breaker (opens on the 2nd failure in a row, 1 s open; the test double unless
 * `makeBreaker` gives another) inside a retry
 * (2 attempts, 100 ms apart), on a TestClock, and a script of six calls:
 *
 * 1. 50 ms, success; 2. 50 ms, success;
 * 3. fails after 20 ms, retried, succeeds after 30 ms;
 * 4. fails after 10 ms, retried, fails after 10 ms: the breaker opens, retry gives up;
 * 5. shed by the open breaker (not retried);
 * then 1 s passes and 6. the half-open probe succeeds after 40 ms: closed.
 *
 * Breaker: success 4, failure 3, rejected 1; durations 50+50+20+30+10+10+40 ms.
 * Retry: success 4 (50, 50, 150, 40 ms), failure 1 (120 ms), rejected 1; 2 retries.
 */
export function scriptedTraffic<B extends Policy<never> & { readonly state: string }>(
  makeBreaker: (clock: TestClock) => B = (clock) => new TestBreaker({ name: 'payments', failures: 2, openMs: 1_000, clock }) as never,
) {
  const clock = new TestClock(1_000_000);
  const breaker = makeBreaker(clock);
  const pipeline = pipe(breaker, retry({ name: 'payments-retry', maxAttempts: 2, backoff: constant(100), clock }));
  const boom = new Error('boom');
  const call = async (...steps: Array<[number, boolean]>): Promise<unknown> => {
    let i = 0;
    const p = pipeline.execute(() => {
      const [ms, ok] = steps[Math.min(i++, steps.length - 1)]!;
      return work(clock, ms, ok ? { value: 'ok' } : { error: boom })();
    });
    const settled = p.then(
      (v) => v,
      (e: unknown) => e,
    );
    await clock.runAll();
    return settled;
  };
  const states: number[] = [];
  const run = async (onOpen?: () => Promise<void> | void) => {
    await call([50, true]);
    await call([50, true]);
    await call([20, false], [30, true]);
    await call([10, false], [10, false]);
    await call([1, true]);
    await onOpen?.();
    await clock.advance(1_000);
    const probe = call([40, true]);
    await probe;
  };
  return { clock, breaker, pipeline, run, states };
}
