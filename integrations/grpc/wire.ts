import { InterceptingCall, Metadata, ServerInterceptingCall, status, type CallOptions, type Interceptor, type ServerInterceptor, type StatusObject } from '@grpc/grpc-js';
import { z } from 'zod';
import { CRITICALITY_META, isCriticality } from '../../lib/criticality.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { fnSchema, nonNegativeMs, parseOptions, positiveMs } from '../../lib/schemas.js';
import {
  Incoming,
  incomingDeadline,
  noteDownstreamFailure,
  parseAttempt,
  parseCriticality,
  remainingMs,
  wireHeaders,
  type IncomingContext,
} from '../shared/wire.js';

const headersSchema = z.object({ criticality: z.string().min(1), attempt: z.string().min(1), noRetry: z.string().min(1) }).partial().strict().optional();

/** Options of {@link wireClientInterceptor}. */
export const WireClientOptionsSchema = z
  .object({
    /**
     * Metadata keys of the wire format (the deadline travels as the call deadline, `grpc-timeout`).
     * @defaultValue `x-breakwater-criticality`, `x-breakwater-attempt`, `x-breakwater-no-retry`
     */
    headers: headersSchema,
    /**
     * Milliseconds taken off the deadline sent, so the answer can travel back before this caller gives up.
     * @defaultValue 0
     */
    deadlineMarginMs: nonNegativeMs.default(0),
  })
  .strict();

/** Options of {@link wireServerInterceptor}. */
export const WireServerOptionsSchema = z
  .object({
    /**
     * Metadata keys of the wire format.
     * @defaultValue `x-breakwater-criticality`, `x-breakwater-attempt`, `x-breakwater-no-retry`
     */
    headers: headersSchema,
    /**
     * The longest a call may take here, in ms: a caller's deadline further away is cut to it (in the handler's
     * context), and a call without one gets it.
     * @defaultValue none
     */
    maxDeadlineMs: positiveMs.optional(),
    /**
     * Which callers may set a call's criticality; the others' calls are `default`.
     * @defaultValue nobody
     */
    trustCriticality: fnSchema<(metadata: Metadata, peer: string) => boolean>().optional(),
  })
  .strict();

/**
 * Options of {@link wireClientInterceptor}.
 * @example
 * ```ts
 * const options: WireClientOptions = { deadlineMarginMs: 5 };
 * ```
 */
export type WireClientOptions = z.input<typeof WireClientOptionsSchema>;

/**
 * Options of {@link wireServerInterceptor}.
 * @example
 * ```ts
 * const options: WireServerOptions = { maxDeadlineMs: 5_000, trustCriticality: (_md, peer) => peer.startsWith('10.') };
 * ```
 */
export type WireServerOptions = z.input<typeof WireServerOptionsSchema>;

const CALL_CONTEXT = Symbol.for('breakwater.callContext');
// breakwater's error brand (lib/errors.ts): a status carrying it becomes a ServiceError that `retry` does not retry.
const BRAND = Symbol.for('breakwater.error');
const DOWNSTREAM = Symbol.for('breakwater.downstream');

/**
 * The grpc-js call options of a call made in `ctx` (an operation's context,
 * or a server handler's {@link callContext}): {@link wireClientInterceptor}
 * reads it to send the remaining deadline, the criticality and the attempt.
 *
 * @example
 * ```ts
 * await policy.execute((ctx) => new Promise((ok, ko) => client.get(req, callOptionsOf(ctx), (e, r) => (e ? ko(e) : ok(r)))));
 * ```
 */
export function callOptionsOf(ctx: ExecutionContext, options: Partial<CallOptions> = {}): Partial<CallOptions> {
  return { ...options, [CALL_CONTEXT]: ctx } as Partial<CallOptions>;
}

/**
 * A grpc-js client interceptor that carries a call's context across the wire:
 * the call deadline becomes the nearer of its own and the remaining time of
 * `ctx.deadline` (grpc-js sends it as `grpc-timeout`, a duration), the
 * criticality and attempt go in metadata, and a failed call whose trailers
 * say "do not retry" rejects with a `ServiceError` that `retry` does not retry
 * (`isNoRetryError` and `isOverloadedError` are true for it). The context
 * comes from {@link callOptionsOf}; a call without one passes unchanged.
 *
 * @example
 * ```ts
 * const client = new UsersClient(target, credentials.createInsecure(), { interceptors: [wireClientInterceptor()] });
 * ```
 */
export function wireClientInterceptor(options: WireClientOptions = {}): Interceptor {
  const o = parseOptions(WireClientOptionsSchema, options, 'grpc.wireClientInterceptor');
  const names = wireHeaders(o.headers);
  return (callOptions, nextCall) => {
    const ctx = (callOptions as { [CALL_CONTEXT]?: ExecutionContext })[CALL_CONTEXT];
    let forward = callOptions;
    const left = ctx === undefined ? undefined : remainingMs(ctx, o.deadlineMarginMs);
    if (left !== undefined) {
      const at = Date.now() + left;
      const own = callOptions.deadline === undefined ? Infinity : +callOptions.deadline;
      if (at < own) forward = { ...callOptions, deadline: at };
    }
    return new InterceptingCall(nextCall(forward), {
      start(metadata, _listener, next) {
        if (ctx !== undefined) {
          const criticality = ctx.meta[CRITICALITY_META];
          if (isCriticality(criticality)) metadata.set(names.criticality, criticality);
          metadata.set(names.attempt, String(ctx.attempt));
        }
        next(metadata, {
          onReceiveStatus(st: StatusObject, nextStatus: (s: StatusObject) => void) {
            if (st.code === status.OK || st.code === status.CANCELLED) return nextStatus(st);
            noteDownstreamFailure(ctx);
            const marked = { ...st, [DOWNSTREAM]: true } as StatusObject;
            if (st.metadata?.get(names.noRetry).length > 0) Object.assign(marked, { [BRAND]: 'OVERLOADED', noRetry: true });
            nextStatus(marked);
          },
        });
      },
    });
  };
}

const contexts = new WeakMap<Metadata, IncomingContext>();

/**
 * The context {@link wireServerInterceptor} gave a call: the caller's
 * deadline (cut to `maxDeadlineMs`), a signal that aborts when it passes or
 * the caller cancels, the criticality honoured in `meta.criticality`. Run the
 * handler's work in it, and pass it on with {@link callOptionsOf} or
 * `resilientFetch`'s `ctx`. `undefined` for a call the interceptor did not see.
 *
 * @example
 * ```ts
 * get(call, callback) { const ctx = callContext(call); ... }
 * ```
 */
export function callContext(call: { readonly metadata: Metadata }): IncomingContext | undefined {
  return contexts.get(call.metadata);
}

/**
 * A grpc-js server interceptor that reads a call's context off the wire
 * (put it first, before a breaker's): a call whose deadline has already
 * passed is answered DEADLINE_EXCEEDED at once and its handler never runs;
 * any other gets a {@link callContext}. A failed call whose handler's calls
 * downstream (made with that context) failed after their own retries is
 * answered with the `x-breakwater-no-retry` trailer (and gRPC's own
 * `grpc-retry-pushback-ms: -1`, which grpc's built-in retries honour), so
 * the caller does not retry in turn.
 *
 * @example
 * ```ts
 * const server = new Server({ interceptors: [wireServerInterceptor({ maxDeadlineMs: 5_000 }), serverInterceptor({ source })] });
 * ```
 */
export function wireServerInterceptor(options: WireServerOptions = {}): ServerInterceptor {
  const o = parseOptions(WireServerOptionsSchema, options, 'grpc.wireServerInterceptor');
  const names = wireHeaders(o.headers);
  const trusted = o.trustCriticality ?? (() => false);
  return (_method, call) => {
    let incoming: Incoming | undefined;
    const ic: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, nextMetadata) {
            const now = Date.now();
            const at = +call.getDeadline();
            const deadline = incomingDeadline(at === Infinity ? undefined : Math.floor(at - now), o.maxDeadlineMs, now);
            if (deadline === 'expired') {
              // The handler never sees the call: no metadata goes on.
              ic.sendStatus({ code: status.DEADLINE_EXCEEDED, details: 'deadline exceeded before the call started', metadata: new Metadata() });
              return;
            }
            const criticality = parseCriticality(metadata.get(names.criticality)[0] as string | undefined, trusted(metadata, call.getPeer()) === true);
            incoming = new Incoming(deadline, criticality, parseAttempt(metadata.get(names.attempt)[0] as string | undefined));
            contexts.set(metadata, incoming.ctx);
            nextMetadata(metadata);
          },
          onCancel() {
            incoming?.cancel(new Error('the call was cancelled'));
          },
        });
      },
      sendStatus(st, next) {
        incoming?.end();
        if (st.code !== status.OK && incoming?.downstreamFailed === true) {
          const metadata = st.metadata?.clone() ?? new Metadata();
          metadata.set(names.noRetry, '1');
          metadata.set('grpc-retry-pushback-ms', '-1');
          return next({ ...st, metadata });
        }
        next(st);
      },
    });
    return ic;
  };
}
