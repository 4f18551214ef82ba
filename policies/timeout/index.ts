export { timeout, TimeoutPolicy } from './timeout.js';
export { TimeoutOptionsSchema, type TimeoutOptions } from './options.js';
export type { TimeoutEvent } from './events.js';
