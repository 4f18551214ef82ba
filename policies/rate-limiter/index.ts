export { rateLimiter, RateLimiterPolicy } from './rate-limiter.js';
export type { RateLimiterOptions, RateAlgorithmConfig, TokenBucketConfig, LeakyBucketConfig, SlidingWindowConfig } from './options.js';
export { isRateAlgorithm, type RateAlgorithm, type LimiterHost } from './algorithm.js';
export { tokenBucket, TokenBucket, type TokenBucketOptions } from './token-bucket.js';
export { leakyBucket, LeakyBucket, type LeakyBucketOptions } from './leaky-bucket.js';
export { slidingWindow, SlidingWindow, type SlidingWindowOptions } from './sliding-window.js';
export type { LocalFallbackEvent } from './events.js';
export { keyedRate, KeyedRateAlgorithm, type KeyedRateOptions, type RateKeyOf } from './keyed.js';
