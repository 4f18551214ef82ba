export { bulkhead, BulkheadPolicy } from './bulkhead.js';
export type { BulkheadOptions } from './options.js';
