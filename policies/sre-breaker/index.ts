export { sreBreaker, SreBreaker, type SreBreakerStats } from './sre-breaker.js';
export type { SreBreakerOptions, ResolvedSreBreakerOptions, SreBreakerSnapshot } from './options.js';
