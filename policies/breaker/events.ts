import type { EventBase } from '../../lib/events.js';

/** A breaker's state: the SRE breaker is only ever `'closed'` or `'open'`; the default breaker may shed a share while `'closed'`. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Why a breaker changed state. */
export type StateChangeReason =
  /** SRE: the drop ratio crossed 0 (up: open, down: closed). */
  | 'dropRatio'
  /** Closed → open: the trip rule's threshold was met (the default breaker: a run of `tripFailures` failures with no success for `tripMs`). */
  | 'threshold'
  /** Open → half-open: `openMs` passed and a call came. */
  | 'retryTimeout'
  /** Half-open → open: a probe failed (or was slow, for `slowCallRatio`; the default breaker: a run of failures while ramping back). */
  | 'probeFailed'
  /** Default breaker, open → half-open: a probe succeeded and the ramp back starts. */
  | 'probeSucceeded'
  /** Default breaker, closed or half-open → open: calls went out and nothing at all came back for too long. */
  | 'stalled'
  /** Default breaker, open or half-open → closed: nothing was recorded for a whole window, so nothing is left to judge by. */
  | 'windowExpired'
  /** Half-open → closed: `probes` probes succeeded (the default breaker: its ramp reached every call). */
  | 'probesSucceeded'
  /** Half-open → open: half-open lasted longer than `maxHalfOpenMs`. */
  | 'halfOpenTimeout'
  /** Forced open by `isolate()`. */
  | 'isolated'
  /** `reset()`, or the last isolation handle disposed. */
  | 'reset';

/** A breaker changed state; listeners run after the change. */
export interface StateChangeEvent extends EventBase {
  readonly type: 'stateChange';
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: StateChangeReason;
  /** The figure behind the change: the ratio or count that tripped it, the SRE drop ratio, the default breaker's stalled wait (ms) or admitted share; `undefined` when none applies. */
  readonly figure: number | undefined;
}

/** A breaker shed a call. */
export interface BreakerRejectedEvent extends EventBase {
  readonly type: 'rejected';
  /** The breaker's state when it shed the call. */
  readonly state: BreakerState;
  /** SRE and the default breaker: the probability the call was shed with (SRE: after the working-bucket discount). */
  readonly dropRatio?: number;
  /** State machine: milliseconds until the breaker may admit a call again, when known. */
  readonly retryAfterMs?: number;
  /** `false` under the `metricsOnly` control: the breaker would have shed the call, and let it pass. */
  readonly enforced?: false;
}

/** An operator changed a breaker's control (`setControl`, a registry's `setControl`, or config). */
export interface ControlChangedEvent extends EventBase {
  readonly type: 'controlChanged';
  readonly from: 'enforcing' | 'disabled' | 'metricsOnly' | 'forcedOpen';
  readonly to: 'enforcing' | 'disabled' | 'metricsOnly' | 'forcedOpen';
}

/** The SRE or the default breaker let a call through because nothing had passed for longer than `forcePassMs`. */
export interface ForcePassEvent extends EventBase {
  readonly type: 'forcePass';
  /** The drop ratio at the time (SRE: before the working-bucket discount; the default breaker: the share it was shedding). */
  readonly dropRatio: number;
  /** Milliseconds since the last call passed. */
  readonly sinceLastPassMs: number;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // Every breaker: its state changed.
    stateChange: StateChangeEvent;
    // Every breaker: a call was shed.
    rejected: BreakerRejectedEvent;
    // The SRE and the default breaker: a call was let through to probe.
    forcePass: ForcePassEvent;
    // Every breaker: an operator changed its control.
    controlChanged: ControlChangedEvent;
  }
}
