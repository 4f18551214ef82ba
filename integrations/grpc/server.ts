import { Metadata, ServerInterceptingCall, status, type ServerInterceptor, type StatusObject } from '@grpc/grpc-js';
import { isShedRejection, TimeoutError } from '../../lib/errors.js';
import { parseOptions } from '../../lib/schemas.js';
import { KeyedSources, type Permit, type PermitSource } from '../shared/permit.js';
import { isFailureCode, shedDetails } from './codes.js';
import { ServerInterceptorOptionsSchema, type ServerInterceptorOptions } from './options.js';

const drop = {
  onReceiveMessage() {},
  onReceiveHalfClose() {},
  onCancel() {},
};

/**
 * A grpc-js server interceptor that puts a breaker (or an adaptive
 * concurrency limiter) in front of every method (go-zero's
 * `UnaryServerInterceptor`, for every call type). The source name is the
 * full method name (`/package.Service/Method`). A shed call never reaches
 * the handler: it is answered UNAVAILABLE "circuit breaker is open" ("concurrency
 * limit reached" from a limiter). Otherwise the status the handler sends is judged (a code of
 * {@link FAILURE_CODES} is a failure, anything else a success); a call the
 * client cancels releases its permit, one whose deadline passed is a
 * failure with a `TimeoutError` (a drop for a limiter).
 *
 * @example
 * ```ts
 * import { Server } from '@grpc/grpc-js';
 * import { serverInterceptor } from 'breakwater/grpc';
 * const server = new Server({ interceptors: [serverInterceptor({ sourceFor: (name) => breaker({ name }) })] });
 * ```
 */
export function serverInterceptor(options: ServerInterceptorOptions): ServerInterceptor {
  const o = parseOptions(ServerInterceptorOptionsSchema, options, 'grpc.serverInterceptor');
  const keyed = o.sourceFor === undefined ? undefined : new KeyedSources(o.sourceFor, o.maxKeys);
  const isFailure = o.isFailure ?? isFailureCode;
  return (method, call) => {
    const source: PermitSource = o.source ?? keyed!.get(method.path);
    let permit: Permit | undefined;
    const ic: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start(next) {
        try {
          permit = source.allow();
        } catch (error) {
          // Shed: UNAVAILABLE. A source that fails instead of shedding is a bug: INTERNAL, never a crash.
          const answer = isShedRejection(error)
            ? { code: status.UNAVAILABLE, details: shedDetails(error) }
            : { code: status.INTERNAL, details: `breakwater: permit source failed: ${String((error as Error)?.message ?? error)}` };
          // Swallow the request and answer for the handler, which never runs.
          next({
            ...drop,
            onReceiveMetadata() {
              ic.sendStatus({ ...answer, metadata: new Metadata() });
            },
          });
          return;
        }
        const admitted = permit;
        next({
          onCancel() {
            // After the status went out, a cancel changes nothing: the permit is settled.
            if (permit === undefined) return;
            permit = undefined;
            const deadline = +call.getDeadline();
            // A TimeoutError: an adaptive limiter counts it as a drop, a breaker as a timeout.
            if (deadline <= Date.now()) admitted.failure(new TimeoutError('grpc.serverInterceptor', 'deadline exceeded'));
            else admitted.release();
          },
        });
      },
      sendStatus(st, next) {
        const admitted = permit;
        if (admitted !== undefined) {
          permit = undefined;
          if (isFailure(st.code)) admitted.failure(st as StatusObject);
          else admitted.success();
        }
        next(st);
      },
    });
    return ic;
  };
}
