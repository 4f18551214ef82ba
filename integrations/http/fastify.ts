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

/** What the Fastify plugin uses of a reply (Fastify's `FastifyReply` fits). */
export interface FastifyLikeReply {
  readonly statusCode: number;
  code(status: number): FastifyLikeReply;
  header(name: string, value: string): FastifyLikeReply;
  send(body?: unknown): unknown;
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
    const serve = (request: FastifyLikeRequest, reply: FastifyLikeReply, next: (error?: unknown) => void, admitted: Permit | ShedAnswer): void => {
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
      next();
    };
    instance.addHook('onRequest', (request: FastifyLikeRequest, reply: FastifyLikeReply, next: (error?: unknown) => void) => {
      let admitted: ReturnType<HttpGuard['admit']>;
      try {
        admitted = guard.admit(request.method, request.routeOptions?.url ?? pathOf(request.url));
      } catch (error) {
        next(error); // a failing source is Fastify's 500, not a crash
        return;
      }
      if (isThenable<Permit | ShedAnswer>(admitted)) admitted.then((a) => serve(request, reply, next, a), next);
      else serve(request, reply, next, admitted);
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
