import { SreBreakerPolicy } from './sre-breaker.js';
export { sreBreaker, SreBreakerPolicy, type SreBreakerStats } from './sre-breaker.js';
export { SreBreakerOptionsSchema, SreBreakerShape, SreBreakerSnapshotSchema, checkSre, type SreBreakerOptions, type ResolvedSreBreakerOptions, type SreBreakerSnapshot } from './options.js';

/** @deprecated Renamed {@link SreBreakerPolicy}; this alias goes in the next major version. */
export const SreBreaker = SreBreakerPolicy;
/** @deprecated Renamed {@link SreBreakerPolicy}; this alias goes in the next major version. */
export type SreBreaker = SreBreakerPolicy;
