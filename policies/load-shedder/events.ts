import type { Criticality } from '../../lib/criticality.js';
import type { EventBase } from '../../lib/events.js';

/** A load shedder dropped a call. */
export interface ShedEvent extends EventBase {
  readonly type: 'shed';
  /** CPU utilisation (0–1) at the decision. */
  readonly cpu: number;
  /** Calls in flight. */
  readonly inFlight: number;
  /** What recent throughput and latency can carry, scaled by the overload factor and the reserve of the call's criticality. */
  readonly maxInFlight: number;
  /** The criticality the dropped call carried in `ctx.meta`, when it carried one. */
  readonly criticality?: Criticality;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // loadShedder(): a call was dropped.
    shed: ShedEvent;
  }
}
