export { resilientFetch, type FetchLike, type ResilientFetch, type ResilientFetchOptions, type ResilientInput, type ResilientRequestInit } from './resilient-fetch.js';
export { HttpStatusError, isHttpStatusError } from './http-status-error.js';
export { parseRetryAfter } from './retry-after.js';
export { isNoRetryError, NoRetryError, WIRE_HEADERS, type WireHeaders } from '../shared/wire.js';
