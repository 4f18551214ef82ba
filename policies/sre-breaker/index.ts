export { sreBreaker, breaker, SreBreaker, type SreBreakerStats } from './sre-breaker.js';
export { SreBreakerOptionsSchema, SreBreakerShape, checkSre, type SreBreakerOptions, type ResolvedSreBreakerOptions } from './options.js';
