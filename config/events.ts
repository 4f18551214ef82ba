import type { EventBase } from '../lib/events.js';

/** A pipeline built by `fromConfig` took a new config in place. */
export interface ConfigAppliedEvent extends EventBase {
  readonly type: 'configApplied';
  /** 1 for the first config, then +1 per applied update. */
  readonly version: number;
  /**
   * True when the update added, removed, renamed or reordered policies, so the pipeline was rebuilt around the
   * kept ones (`ConfigPipeline.pipeline` is a new one); false when every policy changed in place.
   */
  readonly rebuilt: boolean;
}

/** A pipeline built by `fromConfig` refused a config and kept the last good one. */
export interface ConfigRejectedEvent extends EventBase {
  readonly type: 'configRejected';
  /**
   * `'invalid'`: it broke a rule, could not be parsed, or asked a kept policy to change what it cannot change in
   * place; `'error'`: the config stream failed, which ends it (the last good config keeps serving, no later one comes).
   */
  readonly reason: 'invalid' | 'error';
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
