/**
 * Server-side protection for node:http, Express and Fastify: a breaker,
 * limiter or shedder in front of handlers, answering 503 / 429 with `Retry-After`.
 * @packageDocumentation
 */
export { protectHandler, type NodeHandler } from './node.js';
export { protectExpress, type ExpressLikeMiddleware, type ExpressLikeRequest } from './express.js';
export {
  protectFastify,
  type FastifyLikeInstance,
  type FastifyLikePlugin,
  type FastifyLikeReply,
  type FastifyLikeRequest,
} from './fastify.js';
export { HttpGuardOptionsSchema, type HttpGuardOptions } from './options.js';
export { requestContext } from './guard.js';
export { healthHandler, type HealthHandlerOptions } from './health.js';
export {
  isDownstreamFailure,
  isNoRetryError,
  NoRetryError,
  WIRE_HEADERS,
  type IncomingContext,
  type WireHeaders,
} from '../shared/wire.js';
export { shedAnswer, type AdmitRequest, type AsyncPermitSource, type Permit, type PermitSource, type ShedAnswer } from '../shared/permit.js';
export { policySource } from '../shared/policy-source.js';
