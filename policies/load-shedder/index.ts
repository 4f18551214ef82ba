import { LoadShedderPolicy } from './load-shedder.js';
export { loadShedder, LoadShedderPolicy, ShedderPermit } from './load-shedder.js';
export type { LoadShedderOptions } from './options.js';
export type { ShedEvent } from './events.js';

/** @deprecated Renamed {@link LoadShedderPolicy}; this alias goes in the next major version. */
export const LoadShedder = LoadShedderPolicy;
/** @deprecated Renamed {@link LoadShedderPolicy}; this alias goes in the next major version. */
export type LoadShedder = LoadShedderPolicy;
