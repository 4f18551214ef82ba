export { adaptiveLimiter, AdaptiveLimiterPolicy, type AdaptiveLimiterStats } from './adaptive-limiter.js';
export { LimiterPermit } from './call.js';
export {
  AdaptiveLimiterOptionsSchema,
  AdaptiveLimiterShape,
  AimdOptionsSchema,
  checkLimits,
  GradientOptionsSchema,
  LimitAlgorithmSchema,
  VegasOptionsSchema,
  type AdaptiveLimiterOptions,
  type AimdOptions,
  type GradientOptions,
  type ResolvedAdaptiveLimiterOptions,
  type VegasOptions,
} from './options.js';
export type { ConcurrencyRejectedEvent, LimitChangedEvent, LimitChangeReason } from './events.js';
