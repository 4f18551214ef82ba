import type { EventBase } from '../../lib/events.js';

/** `degrade` answered a call from its `to` handler instead of calling the operation. */
export interface DegradedEvent extends EventBase {
  readonly type: 'degraded';
  /** The decision's action (`'custom'` for a predicate). */
  readonly action: string;
  /** The signal values the decision saw. */
  readonly signals: Readonly<Record<string, number>>;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // degrade(): answered from `to`.
    degraded: DegradedEvent;
  }
}
