import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AsyncPermitSource, Permit, ShedAnswer } from '../shared/permit.js';
import { answerExpired, answerShed, HttpGuard, isShed, isThenable, pathOf } from './guard.js';
import type { HttpGuardOptions } from './options.js';

/** What the Express middleware reads of a request (Express's `Request` fits). */
export type ExpressLikeRequest = IncomingMessage & {
  /** The mount path of the router, in Express. */
  readonly baseUrl?: string;
  /** The route matched, when the middleware is mounted on a route. */
  readonly route?: { readonly path?: unknown };
};

/** An Express-style middleware. */
export type ExpressLikeMiddleware = (req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Express middleware putting a breaker, limiter or shedder in front of the
 * handlers after it. A shed call gets 503 (429 for a rate limit) with
 * `Retry-After` and goes no further; otherwise the final status is judged when
 * the response closes: < 500 a success, else a failure (a handler that throws
 * is answered 500 by Express and so counts as a failure). With `sourceFor`,
 * the key is `METHOD://` + the route pattern when the middleware is mounted on
 * a route (`app.get('/users/:id', guard, handler)`), else the request path.
 * Across the wire, as `protectHandler`: an expired request is answered
 * 504 at once, an admitted one gets its `requestContext`, and a failed
 * response gets the "do not retry" header when a call made with that
 * context failed downstream.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { protectExpress } from 'breakwater/http';
 * const app = express();
 * app.get('/users/:id', protectExpress({ sourceFor: (key) => breaker({ name: key }) }), getUser);
 * ```
 */
export function protectExpress(options: HttpGuardOptions | AsyncPermitSource): ExpressLikeMiddleware {
  const guard = new HttpGuard(options, 'protectExpress');
  const serve = (req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void, admitted: Permit | ShedAnswer, deadline: number | undefined): void => {
    if (isShed(admitted)) return answerShed(res, admitted);
    if (res.destroyed || req.destroyed) return admitted.release();
    guard.watch(admitted, res, () => false);
    guard.open(req, res, deadline);
    next();
  };
  return (req, res, next) => {
    const deadline = guard.deadlineOf(req);
    if (deadline === 'expired') return answerExpired(res, guard.expiredStatus);
    const pattern = req.route?.path;
    const route = typeof pattern === 'string' ? (req.baseUrl ?? '') + pattern : (req.baseUrl ?? '') + pathOf(req.url);
    let admitted: ReturnType<HttpGuard['admit']>;
    try {
      admitted = guard.admit(req.method, route, guard.admitRequest(req, deadline));
    } catch (error) {
      return next(error); // a failing source is Express's 500, not a crash
    }
    if (isThenable<Permit | ShedAnswer>(admitted)) admitted.then((a) => serve(req, res, next, a, deadline), next);
    else serve(req, res, next, admitted, deadline);
  };
}
