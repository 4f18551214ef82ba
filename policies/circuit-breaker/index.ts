export { circuitBreaker, CircuitBreaker } from './circuit-breaker.js';
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
export { meets, dynamicThreshold, RATIO_TOLERANCE } from './strategies.js';
