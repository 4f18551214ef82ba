import type { Criticality } from '../../lib/criticality.js';
import type { EventBase } from '../../lib/events.js';

/** An adaptive concurrency limiter shed a call: as many calls were in flight as its limit. */
export interface ConcurrencyRejectedEvent extends EventBase {
  readonly type: 'concurrencyRejected';
  readonly reason: 'concurrencyLimited';
  /** The limit the call was refused at. */
  readonly limit: number;
  /** Calls in flight when it was refused. */
  readonly inFlight: number;
  /** The recent mean response time, the rejection's `retryAfterMs`, when measured. */
  readonly retryAfterMs?: number;
  /** The criticality the refused call carried in `ctx.meta`, when it carried one. */
  readonly criticality?: Criticality;
  /** The refused call's partition, when the limiter has partitions and the call is in one. */
  readonly partition?: string;
}

/**
 * Why an adaptive concurrency limiter moved its limit: `'slowStart'`, doubled
 * while no queueing has been seen yet; `'increase'`, grown by a step with
 * response times near the no-load baseline; `'queueing'`, lowered because
 * response times rose above it; `'drop'`, lowered because calls timed out
 * (or failed with an overload error); `'reset'`, back to the initial limit;
 * `'reconfigure'`, moved into new bounds by a hot reload.
 */
export type LimitChangeReason = 'slowStart' | 'increase' | 'queueing' | 'drop' | 'reset' | 'reconfigure';

/** An adaptive concurrency limiter changed its limit (at the end of a sampling window, on `reset()` or on `reconfigure()`). */
export interface LimitChangedEvent extends EventBase {
  readonly type: 'limitChanged';
  readonly from: number;
  readonly to: number;
  readonly reason: LimitChangeReason;
  /** Mean response time of the window's answered calls, in ms; `undefined` when none answered. */
  readonly rttMs: number | undefined;
  /** The no-load response time the window was compared with, in ms; `undefined` before the first measurement. */
  readonly baselineMs: number | undefined;
  /** Most calls in flight when any of the window's calls started. */
  readonly maxInFlight: number;
  /** Calls the window measured, drops included. */
  readonly samples: number;
  /** Calls of the window that timed out or failed with an overload error. */
  readonly drops: number;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // adaptiveLimiter(): a call was shed.
    concurrencyRejected: ConcurrencyRejectedEvent;
    // adaptiveLimiter(): the limit moved.
    limitChanged: LimitChangedEvent;
  }
}
