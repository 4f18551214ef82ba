export { breakerRegistry, BreakerRegistry, type AnyBreaker } from './registry.js';
export { keyedBreaker, KeyedBreaker, type KeyOf } from './keyed.js';
export type { BreakerRegistryOptions, AdaptiveDefaults, SreDefaults } from './options.js';
