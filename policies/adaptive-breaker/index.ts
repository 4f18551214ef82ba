export { adaptiveBreaker, breaker, AdaptiveBreakerPolicy, type AdaptiveBreakerStats } from './adaptive-breaker.js';
export {
  AdaptiveBreakerOptionsSchema,
  AdaptiveBreakerShape,
  AdaptiveBreakerSnapshotSchema,
  checkAdaptive,
  type AdaptiveBreakerOptions,
  type AdaptiveBreakerSnapshot,
  type ResolvedAdaptiveBreakerOptions,
} from './options.js';
