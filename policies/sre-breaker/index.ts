import { SreBreakerPolicy } from './sre-breaker.js';
export { sreBreaker, SreBreakerPolicy, type SreBreakerStats } from './sre-breaker.js';
export type { SreBreakerOptions, ResolvedSreBreakerOptions, SreBreakerSnapshot } from './options.js';

/** @deprecated Renamed {@link SreBreakerPolicy}; this alias goes in the next major version. */
export const SreBreaker = SreBreakerPolicy;
/** @deprecated Renamed {@link SreBreakerPolicy}; this alias goes in the next major version. */
export type SreBreaker = SreBreakerPolicy;
