export { adaptiveBreaker, breaker, AdaptiveBreakerPolicy, type AdaptiveBreakerStats } from './adaptive-breaker.js';
export type { AdaptiveBreakerOptions, AdaptiveBreakerSnapshot, ResolvedAdaptiveBreakerOptions } from './options.js';
