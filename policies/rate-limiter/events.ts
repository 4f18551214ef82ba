import type { EventBase } from '../../lib/events.js';

/** A distributed rate limiter lost (`active: true`) or regained (`active: false`) its store and limits locally meanwhile. */
export interface LocalFallbackEvent extends EventBase {
  readonly type: 'localFallback';
  /** True while limiting locally. */
  readonly active: boolean;
  /** Why the store was given up, when `active`. */
  readonly error?: unknown;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // rateLimiter() with a shared store: limiting locally, or back to the store.
    localFallback: LocalFallbackEvent;
  }
}
