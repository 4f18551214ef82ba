import type { EventBase } from '../../lib/events.js';

/** A timeout's deadline passed before the call settled. */
export interface TimeoutEvent extends EventBase {
  readonly type: 'timeout';
  /** The timeout in milliseconds. */
  readonly timeoutMs: number;
  readonly mode: 'aggressive' | 'cooperative';
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // timeout(): the deadline passed before the call settled.
    timeout: TimeoutEvent;
  }
}
