import { deadlineTimerOf, type Clock, type DeadlineEntry, type DeadlineTimer } from './clock.js';
import { isStoreUnavailableError, StoreUnavailableError } from './errors.js';

/**
 * One store call under its own deadline: it settles with the store's answer,
 * or with `StoreUnavailableError` when the store fails or does not answer
 * within `ms` (ioredis would otherwise queue a command to a dead server for
 * ~10 s). The deadline goes on the clock's shared deadline timer: no
 * `setTimeout` per call. Whichever comes first settles the promise; what
 * comes later changes nothing (a promise settles once, and removing an
 * expired entry from the timer is harmless).
 */
export class StoreCall<T> implements DeadlineEntry {
  readonly promise: Promise<T>;
  readonly at: number;
  heapIndex = -1;
  private resolve!: (v: T) => void;
  private reject!: (e: unknown) => void;
  private readonly timer: DeadlineTimer;

  constructor(
    clock: Clock,
    private readonly ms: number,
    private readonly policy: string,
    private readonly what: string,
    call: () => Promise<T>,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    let p: Promise<T>;
    try {
      p = call();
    } catch (error) {
      p = Promise.reject(error);
    }
    this.at = clock.now() + ms;
    this.timer = deadlineTimerOf(clock);
    this.timer.add(this);
    Promise.resolve(p).then(this.ok, this.err);
  }

  private readonly ok = (value: T): void => {
    this.timer.remove(this);
    this.resolve(value);
  };

  private readonly err = (error: unknown): void => {
    this.timer.remove(this);
    this.reject(
      isStoreUnavailableError(error)
        ? error
        : new StoreUnavailableError(this.policy, `store ${this.what} failed (${this.policy}): ${String((error as Error)?.message ?? error)}`, { cause: error }),
    );
  };

  /** @internal the deadline passed. */
  expire(): void {
    this.reject(new StoreUnavailableError(this.policy, `store ${this.what} did not answer within ${this.ms} ms (${this.policy})`));
  }
}

/** Runs `call` under a deadline of `ms` on `clock`; see {@link StoreCall}. */
export function boundedStoreCall<T>(clock: Clock, ms: number, policy: string, what: string, call: () => Promise<T>): Promise<T> {
  return new StoreCall(clock, ms, policy, what, call).promise;
}
