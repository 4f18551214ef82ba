import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpGuard, isShed, isThenable, pathOf } from './guard.js';
import type { AsyncPermitSource, Permit, ShedAnswer } from '../shared/permit.js';
import type { HttpGuardOptions } from './options.js';

/** What the Fastify plugin reads of a request (Fastify's `FastifyRequest` fits). */
export interface FastifyLikeRequest {
  readonly method: string;
  readonly url: string;
  /** The matched route; `url` is its pattern (`/users/:id`). */
  readonly routeOptions?: { readonly url?: string };
  /** The node:http request underneath. */
  readonly raw?: { readonly destroyed?: boolean };
}

/** The node:http request a Fastify request wraps, when it is one (it has headers). */
function rawRequest(request: FastifyLikeRequest): IncomingMessage | undefined {
  const raw = request.raw as Partial<IncomingMessage> | undefined;
  return typeof raw?.headers === 'object' && raw.headers !== null ? (raw as IncomingMessage) : undefined;
}

/** What the Fastify plugin uses of a reply (Fastify's `FastifyReply` fits). */
export interface FastifyLikeReply {
  readonly statusCode: number;
  code(status: number): FastifyLikeReply;
  header(name: string, value: string): FastifyLikeReply;
  send(body?: unknown): unknown;
  /** The node:http response underneath. */
  readonly raw?: ServerResponse;
}

/** What the Fastify plugin uses of the instance (Fastify's `FastifyInstance` fits). */
export interface FastifyLikeInstance {
  addHook(name: string, hook: (...args: never[]) => unknown): unknown;
}

/** A Fastify plugin (register it with `app.register(plugin)`). */
export type FastifyLikePlugin = ((instance: FastifyLikeInstance, options: unknown, done: (error?: Error) => void) => void) & {
  readonly [key: symbol]: unknown;
};

/**
 * Fastify plugin putting a breaker, limiter or shedder in front of the routes
 * of the instance it is registered on (it is not encapsulated, as
 * fastify-plugin would make it). `onRequest` admits the call or answers 503
 * (429 for a rate limit) with `Retry-After` without running the handler;
 * `onResponse` judges the final status (< 500 a success, else a failure: a
 * handler that throws is answered 500 by Fastify and so counts); a request the
 * client aborts releases its permit. With `sourceFor`, the key is
 * `METHOD://` + the route pattern (`GET:///users/:id`).
 * Across the wire, as `protectHandler`: an expired request is answered
 * 504 at once, an admitted one gets its `requestContext` (pass the
 * Fastify request), and a failed reply gets the "do not retry" header when a
 * call made with that context failed downstream.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { protectFastify } from 'breakwater/http';
 * const app = Fastify();
 * await app.register(protectFastify({ sourceFor: (key) => breaker({ name: key }) }));
 * ```
 */
export function protectFastify(options: HttpGuardOptions | AsyncPermitSource): FastifyLikePlugin {
  const guard = new HttpGuard(options, 'protectFastify');
  const permits = new WeakMap<object, Permit>();
  const plugin = (instance: FastifyLikeInstance, _options: unknown, done: (error?: Error) => void): void => {
    const serve = (
      request: FastifyLikeRequest,
      reply: FastifyLikeReply,
      next: (error?: unknown) => void,
      admitted: Permit | ShedAnswer,
      deadline: number | undefined,
    ): void => {
      if (isShed(admitted)) {
        reply
          .code(admitted.status)
          .header('retry-after', String(admitted.retryAfterSeconds))
          .send(admitted.status === 429 ? 'Too Many Requests' : 'Service Unavailable');
        return;
      }
      // Admission took time and the client has gone meanwhile: free the slot at once and run nothing.
      if (request.raw?.destroyed === true) {
        admitted.release();
        return;
      }
      permits.set(request, admitted);
      const req = rawRequest(request);
      if (req !== undefined && reply.raw !== undefined) guard.open(req, reply.raw, deadline, [request, req]);
      next();
    };
    instance.addHook('onRequest', (request: FastifyLikeRequest, reply: FastifyLikeReply, next: (error?: unknown) => void) => {
      const req = rawRequest(request);
      const deadline = req === undefined ? undefined : guard.deadlineOf(req);
      if (deadline === 'expired') {
        reply.code(guard.expiredStatus).send('Deadline Exceeded');
        return;
      }
      let admitted: ReturnType<HttpGuard['admit']>;
      try {
        admitted = guard.admit(request.method, request.routeOptions?.url ?? pathOf(request.url), req === undefined ? undefined : guard.admitRequest(req, deadline));
      } catch (error) {
        next(error); // a failing source is Fastify's 500, not a crash
        return;
      }
      if (isThenable<Permit | ShedAnswer>(admitted)) admitted.then((a) => serve(request, reply, next, a, deadline), next);
      else serve(request, reply, next, admitted, deadline);
    });
    instance.addHook('onResponse', (request: FastifyLikeRequest, reply: FastifyLikeReply, next: () => void) => {
      const permit = permits.get(request);
      if (permit !== undefined) {
        permits.delete(request);
        guard.settle(permit, reply.statusCode);
      }
      next();
    });
    instance.addHook('onRequestAbort', (request: FastifyLikeRequest, next: () => void) => {
      const permit = permits.get(request);
      if (permit !== undefined) {
        permits.delete(request);
        permit.release();
      }
      next();
    });
    done();
  };
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'breakwater' });
}
