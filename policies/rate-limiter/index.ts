export { rateLimiter, RateLimiterPolicy } from './rate-limiter.js';
export { RateLimiterOptionsSchema, RateAlgorithmConfigSchema, type RateLimiterOptions, type RateAlgorithmConfig } from './options.js';
export { isRateAlgorithm, type RateAlgorithm, type LimiterHost } from './algorithm.js';
export { tokenBucket, TokenBucket, TokenBucketOptionsSchema, type TokenBucketOptions } from './token-bucket.js';
export { leakyBucket, LeakyBucket, LeakyBucketOptionsSchema, type LeakyBucketOptions } from './leaky-bucket.js';
export { slidingWindow, SlidingWindow, SlidingWindowOptionsSchema, type SlidingWindowOptions } from './sliding-window.js';
export type { LocalFallbackEvent } from './events.js';
