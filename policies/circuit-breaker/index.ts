import { CircuitBreakerPolicy } from './circuit-breaker.js';
export { circuitBreaker, CircuitBreakerPolicy } from './circuit-breaker.js';
export {
  CircuitBreakerOptionsSchema,
  CircuitBreakerVariants,
  CircuitBreakerSnapshotSchema,
  type CircuitBreakerSnapshot,
  type CircuitBreakerOptions,
  type CircuitBreakerStats,
  type CircuitBreakerStrategy,
  type ResolvedCircuitBreakerOptions,
} from './options.js';
export { meets, dynamicThreshold, RATIO_TOLERANCE } from './trips.js';

/** @deprecated Renamed {@link CircuitBreakerPolicy}; this alias goes in the next major version. */
export const CircuitBreaker = CircuitBreakerPolicy;
/** @deprecated Renamed {@link CircuitBreakerPolicy}; this alias goes in the next major version. */
export type CircuitBreaker = CircuitBreakerPolicy;
