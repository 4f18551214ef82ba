import type { RateAlgorithm } from './algorithm.js';
import { LeakyBucket } from './leaky-bucket.js';
import type { RateAlgorithmConfig } from './options.js';
import { SlidingWindow } from './sliding-window.js';
import { TokenBucket } from './token-bucket.js';

/**
 * A new algorithm from its description as data (already checked).
 * @example
 * ```ts
 * algorithmFromData({ kind: 'tokenBucket', rate: 10, burst: 20 });
 * ```
 */
export function algorithmFromData(config: RateAlgorithmConfig): RateAlgorithm {
  switch (config.kind) {
    case 'tokenBucket':
      return new TokenBucket({ rate: config.rate, burst: config.burst });
    case 'leakyBucket':
      return new LeakyBucket({ rate: config.rate, capacity: config.capacity });
    default:
      return new SlidingWindow({ limit: config.limit, windowMs: config.windowMs, buckets: config.buckets });
  }
}
