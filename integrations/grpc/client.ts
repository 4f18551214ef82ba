import { InterceptingCall, Metadata, status, type Interceptor, type StatusObject } from '@grpc/grpc-js';
import { isShedRejection, TimeoutError } from '../../lib/errors.js';
import { parseOptions } from '../../lib/schemas.js';
import { KeyedSources, type Permit, type PermitSource } from '../shared/permit.js';
import { isFailureCode, shedDetails } from './codes.js';
import { ClientInterceptorOptionsSchema, type ClientInterceptorOptions } from './options.js';

/**
 * A grpc-js client interceptor that puts a breaker (or an adaptive
 * concurrency limiter) in front of every call (go-zero's
 * `UnaryClientInterceptor`, for every call type). The source name is
 * `target/package.Service/Method`. A shed call is never sent: it ends at
 * once with UNAVAILABLE "circuit breaker is open" ("concurrency limit
 * reached" from a limiter). Otherwise the final status is judged: a code of
 * {@link FAILURE_CODES} is a failure (DEADLINE_EXCEEDED with a
 * `TimeoutError`, a drop for a limiter), CANCELLED (the caller's own
 * cancellation) releases the permit, anything else is a success.
 *
 * @example
 * ```ts
 * import { credentials } from '@grpc/grpc-js';
 * import { clientInterceptor } from 'breakwater/grpc';
 * const client = new UsersClient('users:50051', credentials.createInsecure(), {
 *   interceptors: [clientInterceptor({ target: 'users:50051', sourceFor: (name) => breaker({ name }) })],
 * });
 * ```
 */
export function clientInterceptor(options: ClientInterceptorOptions): Interceptor {
  const o = parseOptions(ClientInterceptorOptionsSchema, options, 'grpc.clientInterceptor');
  const keyed = o.sourceFor === undefined ? undefined : new KeyedSources(o.sourceFor, o.maxKeys);
  const isFailure = o.isFailure ?? isFailureCode;
  const prefix = o.target.replace(/\/+$/, '');
  return (callOptions, nextCall) => {
    const source: PermitSource = o.source ?? keyed!.get(`${prefix}/${callOptions.method_definition.path.replace(/^\/+/, '')}`);
    let permit: Permit;
    try {
      permit = source.allow();
    } catch (error) {
      if (!isShedRejection(error)) throw error;
      return shed(nextCall(callOptions), shedDetails(error));
    }
    return new InterceptingCall(nextCall(callOptions), {
      start(metadata, _listener, next) {
        next(metadata, {
          onReceiveStatus(st: StatusObject, nextStatus: (s: StatusObject) => void) {
            if (st.code === status.CANCELLED) permit.release();
            // A TimeoutError: an adaptive limiter counts it as a drop, a breaker as a timeout.
            else if (st.code === status.DEADLINE_EXCEEDED && isFailure(st.code)) permit.failure(new TimeoutError('grpc.clientInterceptor', st.details, { cause: st }));
            else if (isFailure(st.code)) permit.failure(st);
            else permit.success();
            nextStatus(st);
          },
        });
      },
    });
  };
}

/** A call that never reaches the network: the call below is cancelled unstarted, the caller gets UNAVAILABLE. */
function shed(below: ConstructorParameters<typeof InterceptingCall>[0], details: string): InterceptingCall {
  return new InterceptingCall(below, {
    start(_metadata, listener) {
      below.cancelWithStatus(status.UNAVAILABLE, details);
      process.nextTick(() => listener.onReceiveStatus({ code: status.UNAVAILABLE, details, metadata: new Metadata() }));
    },
    sendMessage() {},
    halfClose() {},
    cancel() {},
  });
}
