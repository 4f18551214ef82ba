import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AsyncPermitSource, Permit, ShedAnswer } from '../shared/permit.js';
import { answerExpired, answerShed, failureStatus, HttpGuard, isShed, isThenable, pathOf } from './guard.js';
import type { HttpGuardOptions } from './options.js';

/** A node:http request handler, sync or async. */
export type NodeHandler<Req extends IncomingMessage = IncomingMessage, Res extends ServerResponse = ServerResponse> = (
  req: Req,
  res: Res,
) => unknown;

/**
 * Puts a breaker, limiter or shedder in front of a node:http handler. A shed
 * call is answered 503 (429 for a rate limit) with `Retry-After`, without
 * calling the handler; after the handler, a final status < 500 is a success
 * for the source and anything else a failure; a handler that throws or
 * rejects is answered 500 (when nothing was sent yet) and counts as a
 * failure; a client that goes away first releases the permit. With
 * `sourceFor`, each `METHOD://path` (query stripped) has its own source.
 *
 * Across the wire (docs/integrations.md): a request whose deadline header
 * says no time is left is answered 504 at once; an admitted one gets its
 * `requestContext` (the caller's deadline cut to `maxDeadlineMs`, its
 * criticality when `trustCriticality` says so). A handler failure is
 * answered 504 (deadline), 503 (shed) or 500, with the "do not retry"
 * header when it came from a call downstream that already retried.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { protectHandler } from 'breakwater/http';
 * createServer(protectHandler(handler, { sourceFor: (key) => breaker({ name: key }) })).listen(8080);
 * ```
 */
export function protectHandler<Req extends IncomingMessage, Res extends ServerResponse>(
  handler: NodeHandler<Req, Res>,
  options: HttpGuardOptions | AsyncPermitSource,
): NodeHandler<Req, Res> {
  const guard = new HttpGuard(options, 'protectHandler');
  const sourceFailed = (res: ServerResponse, error: unknown): void => {
    // A source that fails (not sheds) is a bug: answer 500 rather than crash the server.
    guard.onError(error);
    if (res.headersSent || res.destroyed) return;
    res.statusCode = 500;
    res.end();
  };
  const serve = (req: Req, res: Res, admitted: Permit | ShedAnswer, deadline: number | undefined): void => {
    if (isShed(admitted)) return answerShed(res, admitted);
    // Admission took time and the client has gone meanwhile: nothing to run.
    if (res.destroyed || req.destroyed) return admitted.release();
    let threw = false;
    guard.watch(admitted, res, () => threw);
    const incoming = guard.open(req, res, deadline);
    const fail = (error: unknown): void => {
      threw = true;
      guard.onError(error);
      if (guard.noRetry(error)) incoming.downstreamFailed = true;
      if (!res.headersSent) {
        res.statusCode = failureStatus(error);
        res.end();
      } else res.destroy();
    };
    try {
      const out = handler(req, res);
      if (isThenable(out)) out.then(undefined, fail);
    } catch (error) {
      fail(error);
    }
  };
  return (req, res) => {
    const deadline = guard.deadlineOf(req);
    if (deadline === 'expired') return answerExpired(res, guard.expiredStatus);
    let admitted: ReturnType<HttpGuard['admit']>;
    try {
      admitted = guard.admit(req.method, pathOf(req.url), guard.admitRequest(req, deadline));
    } catch (error) {
      return sourceFailed(res, error);
    }
    if (isThenable<Permit | ShedAnswer>(admitted)) {
      admitted.then(
        (a) => serve(req, res, a, deadline),
        (error: unknown) => sourceFailed(res, error),
      );
    } else serve(req, res, admitted, deadline);
    return undefined;
  };
}
