import type { Observable } from 'rxjs';
import type { Clock } from '../lib/clock.js';
import type { PolicyEvent } from '../lib/events.js';
import type { ExecuteOptions, Operation, Policy } from '../lib/policy.js';

/** What B calls C through when it is not a writer: `execute(op, options)`, and events for breaker rows. */
export interface Caller {
  execute(op: Operation<unknown>, options?: ExecuteOptions): Promise<unknown>;
  readonly events$?: Observable<PolicyEvent>;
}

/** Why A stopped waiting for a deadline-blind call. */
export class CallerGaveUp extends Error {
  override readonly name = 'CallerGaveUp';
}

/**
 * The naive client's blindness to its caller's deadline: runs `inner` without
 * A's deadline or signal (so its retries go on after A gave up, each one
 * work C does for nobody), while A itself still stops waiting after its
 * `timeout` (or at its `deadline`). What B answers late is dropped; the work
 * A left behind is handed to `onOrphan` (the lab keeps B's thread busy until
 * it ends, as a real handler stuck in its retry loop would).
 */
export function deadlineBlind(inner: Policy<unknown>, clock: Clock, onOrphan?: (work: Promise<unknown>) => void): Caller {
  return {
    events$: inner.events$,
    execute(op, options = {}) {
      const { timeout, deadline, signal: _signal, ...rest } = options;
      const work = inner.execute(op, rest);
      const waitMs = timeout ?? (deadline === undefined ? undefined : deadline - clock.now());
      if (waitMs === undefined) return work;
      return new Promise((resolve, reject) => {
        const timer = clock.setTimeout(() => {
          onOrphan?.(work);
          reject(new CallerGaveUp(`the caller gave up after ${waitMs} ms`));
        }, waitMs);
        work.then(
          (value) => {
            clock.clearTimeout(timer);
            resolve(value);
          },
          (error: unknown) => {
            clock.clearTimeout(timer);
            reject(error);
          },
        );
      });
    },
  };
}
