import { KeyedBreakerPolicy } from './keyed.js';
import type { AnyBreaker } from './registry.js';
export { breakerRegistry, BreakerRegistry, type AnyBreaker } from './registry.js';
export { keyedBreaker, KeyedBreakerPolicy, type KeyOf } from './keyed.js';
export type { BreakerRegistryOptions, BreakerRegistryReload, AdaptiveDefaults, SreDefaults } from './options.js';

/** @deprecated Renamed {@link KeyedBreakerPolicy}; this alias goes in the next major version. */
export const KeyedBreaker = KeyedBreakerPolicy;
/** @deprecated Renamed {@link KeyedBreakerPolicy}; this alias goes in the next major version. */
export type KeyedBreaker<B extends AnyBreaker = AnyBreaker> = KeyedBreakerPolicy<B>;
