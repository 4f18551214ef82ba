export { circuitBreaker, CircuitBreaker } from './circuit-breaker.js';
export type {
  CircuitBreakerSnapshot,
  CircuitBreakerOptions,
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
} from './options.js';
export { meets, dynamicThreshold, RATIO_TOLERANCE } from './strategies.js';
