import type { Subscription } from 'rxjs';

/**
 * What `registerMetrics` and friends return: `dispose()` (or `using`) stops
 * watching the policy and removes what was registered for it.
 */
export interface MetricsHandle {
  /** Unsubscribes; calling it again does nothing. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** A {@link MetricsHandle} that unsubscribes `sub` and then runs `cleanup`, once. */
export function handleOf(sub: Subscription, cleanup: () => void): MetricsHandle {
  let done = false;
  const dispose = (): void => {
    if (done) return;
    done = true;
    sub.unsubscribe();
    cleanup();
  };
  return { dispose, [Symbol.dispose]: dispose };
}
