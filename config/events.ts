import type { EventBase } from '../lib/events.js';

/** A pipeline built by `fromConfig` took a new config in place. */
export interface ConfigAppliedEvent extends EventBase {
  readonly type: 'configApplied';
  /** 1 for the first config, then +1 per applied update. */
  readonly version: number;
}

/** A pipeline built by `fromConfig` refused a config and kept the last good one. */
export interface ConfigRejectedEvent extends EventBase {
  readonly type: 'configRejected';
  /**
   * `'invalid'`: it broke a rule, or could not be parsed; `'structure'`: it changed which policies run, or their
   * order; `'error'`: the config stream failed, which ends it (the last good config keeps serving, no later one comes).
   */
  readonly reason: 'invalid' | 'structure' | 'error';
  /** Every problem, with its path. */
  readonly issues: readonly { readonly path: string; readonly message: string }[];
}

declare module '../lib/events.js' {
  interface PolicyEventTypes {
    // fromConfig(): a new config took effect.
    configApplied: ConfigAppliedEvent;
    // fromConfig(): a config was refused.
    configRejected: ConfigRejectedEvent;
  }
}
