export { bulkhead, BulkheadPolicy } from './bulkhead.js';
export { BulkheadOptionsSchema, type BulkheadOptions } from './options.js';
