import type { Subscription } from 'rxjs';

/**
 * What `registerMetrics`, `registerOtelMetrics` and `logEvents` return: `dispose()` (or `using`) stops
 * watching the policy and removes what was registered for it.
 */
export interface WatchHandle {
  /** Unsubscribes; calling it again does nothing. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** A {@link WatchHandle} that unsubscribes `sub` and then runs `cleanup`, once. */
export function handleOf(sub: Subscription, cleanup: () => void): WatchHandle {
  let done = false;
  const dispose = (): void => {
    if (done) return;
    done = true;
    sub.unsubscribe();
    cleanup();
  };
  return { dispose, [Symbol.dispose]: dispose };
}
