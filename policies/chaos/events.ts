import type { EventBase } from '../../lib/events.js';

/** Chaos injected a fault, latency or a substitute result into this call. */
export interface InjectedEvent extends EventBase {
  readonly type: 'injected';
  readonly kind: 'fault' | 'latency' | 'result';
  /** The latency injected, for `kind: 'latency'`. */
  readonly delayMs?: number;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // chaos(): a fault, latency or result was injected.
    injected: InjectedEvent;
  }
}
