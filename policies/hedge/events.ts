import type { EventBase } from '../../lib/events.js';

/** Hedge started another attempt beside the ones running. */
export interface HedgedEvent extends EventBase {
  readonly type: 'hedged';
  /** The hedged attempt that starts (2 for the first hedge; 1 is the primary). */
  readonly attempt: number;
  /** How long the call waited for it: the delay, or 0 when a failure started it at once. */
  readonly delayMs: number;
}

/** Hedge took this attempt's result; the others are aborted. */
export interface WonEvent extends EventBase {
  readonly type: 'won';
  /** The winning attempt (1 for the primary). */
  readonly attempt: number;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // hedge(): another attempt started.
    hedged: HedgedEvent;
    // hedge(): an attempt's result was taken.
    won: WonEvent;
  }
}
