export { sreBreaker, SreBreaker, type SreBreakerStats } from './sre-breaker.js';
export { SreBreakerOptionsSchema, SreBreakerShape, SreBreakerSnapshotSchema, checkSre, type SreBreakerOptions, type ResolvedSreBreakerOptions, type SreBreakerSnapshot } from './options.js';
