import type { Clock } from './clock.js';
import type { AbortListener, Scope } from './context.js';

/** One wait on a clock that a scope's abort ends early. */
class Sleep implements AbortListener {
  private handle: unknown;
  private resolve!: () => void;
  private reject!: (error: unknown) => void;
  readonly promise: Promise<void>;

  constructor(
    private readonly clock: Clock,
    ms: number,
    private readonly scope: Scope | undefined,
  ) {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (scope !== undefined) {
      if (scope.aborted) {
        this.reject(scope.reason);
        return;
      }
      scope.add(this);
    }
    this.handle = clock.setTimeout(this.wake, ms);
  }

  onAbort(scope: Scope): void {
    this.clock.clearTimeout(this.handle);
    this.reject(scope.reason);
  }

  private readonly wake = (): void => {
    this.scope?.remove(this);
    this.resolve();
  };
}

/** Waits `ms` on `clock`, ending at once (rejecting with the reason) when `scope` aborts. */
export function sleep(clock: Clock, ms: number, scope: Scope | undefined): Promise<void> {
  return new Sleep(clock, ms, scope).promise;
}
