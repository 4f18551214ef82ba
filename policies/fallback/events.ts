import type { EventBase } from '../../lib/events.js';

/** A fallback answered instead of the operation. */
export interface FallbackEvent extends EventBase {
  readonly type: 'fallback';
  /** Index of the handler that answered (0 for `fallback`). */
  readonly handler: number;
  /** The error it answered. */
  readonly error: unknown;
}

/** Fallback handlers failed; the original error is rethrown. */
export interface FallbackFailedEvent extends EventBase {
  readonly type: 'fallbackFailed';
  /** The error the handlers were answering. */
  readonly error: unknown;
  /** What each handler that ran threw, in order. */
  readonly handlerErrors: readonly unknown[];
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // fallback(): a handler answered.
    fallback: FallbackEvent;
    // fallback(): every handler failed.
    fallbackFailed: FallbackFailedEvent;
  }
}
