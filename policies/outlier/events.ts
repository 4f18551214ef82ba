import type { EventBase } from '../../lib/events.js';

/** Outlier detection ejected a host: calls go to the others until `ejectionMs` passes. */
export interface HostEjectedEvent extends EventBase {
  readonly type: 'hostEjected';
  readonly host: string;
  /** The times this host has been ejected, this one included (after the decay of its time back in the pool). */
  readonly ejections: number;
  /** How long this ejection lasts: the base ejection time × `ejections`, at most `maxEjectionMs`. */
  readonly ejectionMs: number;
}

/** A host met the ejection rule, but as many hosts as the pool may lose are out already: it stays. */
export interface EjectionSkippedEvent extends EventBase {
  readonly type: 'ejectionSkipped';
  readonly host: string;
  /** Hosts ejected now. */
  readonly ejected: number;
}

/** An ejected host's time was up: it is back in the pool (reported by the first call or `pick` that notices). */
export interface HostReturnedEvent extends EventBase {
  readonly type: 'hostReturned';
  readonly host: string;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // outlierDetection(): a host was ejected.
    hostEjected: HostEjectedEvent;
    // outlierDetection(): a host met the rule, but the most hosts that may be out already are.
    ejectionSkipped: EjectionSkippedEvent;
    // outlierDetection(): an ejected host is back.
    hostReturned: HostReturnedEvent;
  }
}
