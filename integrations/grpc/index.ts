/**
 * Breaker interceptors for `@grpc/grpc-js` (an optional peer dependency), as go-zero registers on every client and server.
 * @packageDocumentation
 */
export { clientInterceptor } from './client.js';
export { serverInterceptor } from './server.js';
export { FAILURE_CODES, isFailureCode, LIMIT_DETAILS, SHED_DETAILS, shedDetails } from './codes.js';
export {
  ClientInterceptorOptionsSchema,
  ServerInterceptorOptionsSchema,
  type ClientInterceptorOptions,
  type ServerInterceptorOptions,
} from './options.js';
export type { Permit, PermitSource } from '../shared/permit.js';
export {
  callContext,
  callOptionsOf,
  wireClientInterceptor,
  wireServerInterceptor,
  WireClientOptionsSchema,
  WireServerOptionsSchema,
  type WireClientOptions,
  type WireServerOptions,
} from './wire.js';
export { isNoRetryError, NoRetryError, WIRE_HEADERS, type IncomingContext, type WireHeaders } from '../shared/wire.js';
