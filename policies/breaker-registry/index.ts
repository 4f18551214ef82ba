export { breakerRegistry, BreakerRegistry, type AnyBreaker } from './registry.js';
export { keyedBreaker, KeyedBreaker, type KeyOf } from './keyed.js';
export { BreakerRegistryOptionsSchema, type BreakerRegistryOptions, type AdaptiveDefaults, type SreDefaults } from './options.js';
