import type { EventBase } from '../../lib/events.js';

/** Retry will try again after `delayMs`. */
export interface RetryEvent extends EventBase {
  readonly type: 'retry';
  /** The attempt that is about to start (2 for the first retry). */
  readonly attempt: number;
  readonly delayMs: number;
  /** What the failed attempt threw (or the result judged a failure). */
  readonly error: unknown;
}

/** Retry stopped trying and rethrew the last error. */
export interface GiveUpEvent extends EventBase {
  readonly type: 'giveUp';
  /** Attempts made in all. */
  readonly attempts: number;
  readonly error: unknown;
  /** Why retry stopped. */
  readonly reason: 'maxAttempts' | 'notHandled' | 'deadline' | 'budget' | 'cancelled' | 'maxDelay' | 'invalidBackoff';
}

/** Retry's call succeeded. */
export interface SuccessEvent extends EventBase {
  readonly type: 'success';
  /** Attempts made in all, the successful one included. */
  readonly attempts: number;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // retry(): another attempt is coming.
    retry: RetryEvent;
    // retry(): no more attempts; the last error is rethrown.
    giveUp: GiveUpEvent;
    // retry(): the call succeeded.
    success: SuccessEvent;
  }
}
