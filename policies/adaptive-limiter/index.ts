export { adaptiveLimiter, AdaptiveLimiterPolicy, type AdaptiveLimiterStats } from './adaptive-limiter.js';
export { LimiterPermit } from './call.js';
export type { AdaptiveLimiterOptions, AimdOptions, GradientOptions, ResolvedAdaptiveLimiterOptions, VegasOptions } from './options.js';
export type { ConcurrencyRejectedEvent, LimitChangedEvent, LimitChangeReason } from './events.js';
