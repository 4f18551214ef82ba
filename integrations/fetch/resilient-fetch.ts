import { runNext } from '../../lib/context.js';
import { CRITICALITY_META, isCriticality } from '../../lib/criticality.js';
import { ConfigError } from '../../lib/errors.js';
import type { ExecuteOptions, ExecutionContext, Policy } from '../../lib/policy.js';
import { markDownstream, noteDownstreamFailure, NoRetryError, remainingMs, wireHeaders, type WireHeaders } from '../shared/wire.js';
import { HttpStatusError } from './http-status-error.js';
import { parseRetryAfter } from './retry-after.js';

/** The `fetch` signature {@link resilientFetch} wraps and returns. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of {@link resilientFetch}. */
export interface ResilientFetchOptions {
  /**
   * Which responses are failures, thrown as {@link HttpStatusError}.
   * @defaultValue status >= 500 or 429
   */
  isFailure?: (response: Response) => boolean;
  /**
   * How many bytes of a failed response's body are read (kept as `error.body`) before the rest is cancelled.
   * @defaultValue 65536
   */
  maxDrainBytes?: number;
  /**
   * Whether each request carries the call's remaining deadline, criticality and attempt in headers, and a failed
   * response carrying the "do not retry" header becomes a {@link NoRetryError}. Turn it off for services outside
   * your own (a third party has no use for them).
   * @defaultValue true
   */
  propagate?: boolean;
  /**
   * Header names of the wire format (see docs/integrations.md).
   * @defaultValue `WIRE_HEADERS`
   */
  headers?: Partial<WireHeaders>;
  /**
   * Milliseconds taken off the deadline sent, so the callee's answer can travel back before this caller gives up
   * (the network time a remaining duration cannot account for).
   * @defaultValue 0
   */
  deadlineMarginMs?: number;
}

/** What a call of the fetch made by {@link resilientFetch} takes besides the request: `execute` options. */
export type ResilientRequestInit = RequestInit & {
  /** Passed to `policy.execute` (`timeout`, `deadline`, `key`, `meta`); the signal is `init.signal`. */
  execute?: Omit<ExecuteOptions, 'signal'>;
  /**
   * The call this request is part of (a handler's `requestContext(req)`, or the `ctx` of an operation): the policy
   * runs inside it as one more layer, so its deadline, signal and criticality bound this request and travel on.
   */
  ctx?: ExecutionContext;
};

/**
 * What a call of the fetch made by {@link resilientFetch} requests: a URL or `Request`, or a function of the
 * attempt's context that gives one, read for each attempt (e.g. `(ctx) => \`http://${ctx.meta.host}/users\`` with
 * `outlierDetection`, which picks each attempt's host).
 */
export type ResilientInput = string | URL | Request | ((ctx: ExecutionContext) => string | URL | Request);

/** A `fetch` under a policy; what the policy may answer instead (`T`, e.g. a fallback's value) is in its result type. */
export type ResilientFetch<T> = (input: ResilientInput, init?: ResilientRequestInit) => Promise<Response | T>;

const failureByDefault = (r: Response): boolean => r.status >= 500 || r.status === 429;

/**
 * Wraps `fetch` in a policy. Each attempt gets the policy's `ctx.signal` (so
 * timeouts, deadlines and the caller's `init.signal` abort the request in
 * flight); a response that is a failure (5xx and 429 by default) has its body
 * drained and is thrown as an {@link HttpStatusError} carrying `retryAfterMs`
 * from `Retry-After` (seconds or HTTP-date), which `retry` waits before the
 * next attempt; any other response is returned as is. A `Request` input is
 * cloned per attempt; a streaming `init.body` cannot be sent twice. The input may be a function of the
 * attempt's context, read for each attempt (the host `outlierDetection` picks is in `ctx.meta.host`).
 *
 * Across the wire (docs/integrations.md): each attempt sends the time left of
 * `ctx.deadline` (`x-breakwater-timeout-ms`), `ctx.meta.criticality` and
 * `ctx.attempt`; a failed response marked `x-breakwater-no-retry` rejects
 * with a {@link NoRetryError}, which `retry` does not retry; `init.ctx` runs
 * the request inside a call already under way (a handler's `requestContext`).
 *
 * @example
 * ```ts
 * const http = resilientFetch(policy().timeout(2_000).retry({ maxAttempts: 3 }).breaker());
 * const res = await http('https://api.example/users/42', { signal: req.signal });
 * ```
 */
export function resilientFetch<T>(policy: Policy<T>, fetchImpl?: FetchLike, options: ResilientFetchOptions = {}): ResilientFetch<T> {
  const doFetch: FetchLike = fetchImpl ?? ((input, init) => globalThis.fetch(input, init));
  const isFailure = options.isFailure ?? failureByDefault;
  const maxDrain = options.maxDrainBytes ?? 65_536;
  const propagate = options.propagate ?? true;
  const names = wireHeaders(options.headers);
  const margin = options.deadlineMarginMs ?? 0;
  if (!(typeof margin === 'number' && margin >= 0 && margin < Infinity)) {
    throw new ConfigError('resilientFetch', [{ path: 'deadlineMarginMs', message: `expected a finite number of milliseconds >= 0, got ${String(margin)}` }]);
  }
  return (input, init) => {
    const { execute, ctx: parent, ...rest } = init ?? {};
    let last: ExecutionContext | undefined;
    const attempt = async (ctx: ExecutionContext): Promise<Response> => {
      last = ctx;
      const target = typeof input === 'function' ? input(ctx) : input;
      const request = target instanceof Request ? target.clone() : target;
      // init.headers replace a Request's own: start from those when init gives none.
      const given = rest.headers ?? (request instanceof Request ? request.headers : undefined);
      const headers = propagate ? outgoing(given, ctx, names, margin) : rest.headers;
      const response = await doFetch(request, { ...rest, headers, signal: ctx.signal });
      if (!isFailure(response)) return response;
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), ctx.clock.now());
      const body = await drain(response, maxDrain);
      const failed = new HttpStatusError(response, retryAfterMs, body);
      if (propagate && response.headers.has(names.noRetry)) {
        throw new NoRetryError('resilientFetch', response.status, `${failed.message}, answered "do not retry"`, { cause: failed });
      }
      throw failed;
    };
    const signal = rest.signal ?? undefined;
    const call =
      parent !== undefined
        ? runNext(attempt, signal === undefined ? parent : withSignal(parent, signal), { policy, next: undefined })
        : policy.execute(attempt, signal === undefined && execute === undefined ? undefined : { ...execute, signal });
    return call.then(undefined, (error: unknown) => {
      // The final failure, after this call's own retries: the server above answers "do not retry" for it.
      markDownstream(error);
      // Found by the request's meta, which `init.ctx` or `execute: requestContext(req)` carries.
      noteDownstreamFailure(parent ?? last);
      throw error;
    });
  };
}

/** The request's headers with the call's remaining deadline, criticality and attempt added. */
function outgoing(given: RequestInit['headers'], ctx: ExecutionContext, names: WireHeaders, margin: number): Headers {
  const headers = new Headers(given);
  const left = remainingMs(ctx, margin);
  if (left !== undefined) headers.set(names.deadline, String(left));
  const criticality = ctx.meta[CRITICALITY_META];
  if (isCriticality(criticality)) headers.set(names.criticality, criticality);
  headers.set(names.attempt, String(ctx.attempt));
  return headers;
}

/** `ctx` with the caller's own signal too: either one aborting cancels the request. */
function withSignal(ctx: ExecutionContext, signal: AbortSignal): ExecutionContext {
  return { deadline: ctx.deadline, attempt: ctx.attempt, key: ctx.key, meta: ctx.meta, clock: ctx.clock, signal: AbortSignal.any([ctx.signal, signal]) };
}

/** Reads up to `max` bytes of the body as text and cancels the rest; never throws. */
async function drain(response: Response, max: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) return decode(chunks);
      chunks.push(value);
      size += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // a body cut short (abort, reset) is still a failed response
  } finally {
    reader.releaseLock();
  }
  return decode(chunks, max);
}

/** The bytes of `chunks` as UTF-8 text, at most `max` of them, never a character cut in two. */
function decode(chunks: Uint8Array[], max = Infinity): string {
  const bytes = Buffer.concat(chunks);
  if (bytes.length <= max) return bytes.toString('utf8');
  let end = max;
  // The first byte left out continues a character: leave that whole character out.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
