import { CircuitBreakerPolicy } from './circuit-breaker.js';
export { circuitBreaker, CircuitBreakerPolicy } from './circuit-breaker.js';
export type {
  CircuitBreakerSnapshot,
  CircuitBreakerOptions,
  CircuitBreakerTripOptions,
  CircuitBreakerStrategyOptions,
  CircuitBreakerStrategyOption,
  CircuitBreakerCommonOptions,
  SlowCallRatioOptions,
  ErrorRatioOptions,
  ErrorCountOptions,
  ConsecutiveFailuresOptions,
  DynamicThresholdOptions,
  CustomStrategyOptions,
  CircuitBreakerStats,
  CircuitBreakerStrategy,
  ResolvedCircuitBreakerOptions,
  CountWindowOption,
  OpenBackoff,
  OpenMsFunction,
} from './options.js';
export type { CountWindowSnapshot } from './count-window.js';
export { dynamicThreshold } from './trips.js';

/** @deprecated Renamed {@link CircuitBreakerPolicy}; this alias goes in the next major version. */
export const CircuitBreaker = CircuitBreakerPolicy;
/** @deprecated Renamed {@link CircuitBreakerPolicy}; this alias goes in the next major version. */
export type CircuitBreaker = CircuitBreakerPolicy;
