export { bulkhead, BulkheadPolicy } from './bulkhead.js';
export type { BulkheadOptions } from './options.js';
export { keyedBulkhead, KeyedBulkheadPolicy, type KeyedBulkheadOptions, type BulkheadKeyOf } from './keyed.js';
