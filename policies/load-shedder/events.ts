import type { EventBase } from '../../lib/events.js';

/** A load shedder dropped a call. */
export interface ShedEvent extends EventBase {
  readonly type: 'shed';
  /** CPU utilisation (0–1) at the decision. */
  readonly cpu: number;
  /** Calls in flight. */
  readonly inFlight: number;
  /** What recent throughput and latency can carry, scaled by the overload factor. */
  readonly maxInFlight: number;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // loadShedder(): a call was dropped.
    shed: ShedEvent;
  }
}
