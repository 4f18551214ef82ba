import { systemClock } from '../../lib/clock.js';
import { CRITICALITY_META, isCriticality, type Criticality } from '../../lib/criticality.js';
import { isShedRejection, ResilienceError, TimeoutError } from '../../lib/errors.js';
import type { ExecutionContext } from '../../lib/policy.js';

/**
 * The names of the headers (HTTP) and metadata keys (gRPC) that carry a
 * call's deadline, criticality, attempt and "do not retry" answer across
 * the wire; see docs/integrations.md for the format.
 */
export interface WireHeaders {
  /**
   * The time the callee has left, in whole milliseconds (a duration, never a clock time, so clock skew between hosts does
   * not matter). HTTP only: gRPC carries it as the call deadline (`grpc-timeout`).
   * @defaultValue `'x-breakwater-timeout-ms'`
   */
  deadline: string;
  /**
   * The request's criticality: `critical`, `default` or `sheddable`.
   * @defaultValue `'x-breakwater-criticality'`
   */
  criticality: string;
  /**
   * Which try of the caller's this request is: 1 for the first, 2 for the first retry.
   * @defaultValue `'x-breakwater-attempt'`
   */
  attempt: string;
  /**
   * On a response (HTTP header, gRPC trailer): the callee already retried its own dependency, or refused; retrying it will not help.
   * @defaultValue `'x-breakwater-no-retry'`
   */
  noRetry: string;
}

/**
 * The default {@link WireHeaders}. `x-breakwater-timeout-ms` follows Envoy's
 * `x-envoy-expected-rq-timeout-ms` (whole milliseconds the request may still take).
 */
export const WIRE_HEADERS: Readonly<WireHeaders> = /* @__PURE__ */ Object.freeze({
  deadline: 'x-breakwater-timeout-ms',
  criticality: 'x-breakwater-criticality',
  attempt: 'x-breakwater-attempt',
  noRetry: 'x-breakwater-no-retry',
});

/** The header names of `given` over the defaults, lower-cased (Node and grpc-js keep header names lower-case). */
export function wireHeaders(given: Partial<WireHeaders> | undefined): WireHeaders {
  const h = { ...WIRE_HEADERS, ...given };
  return { deadline: h.deadline.toLowerCase(), criticality: h.criticality.toLowerCase(), attempt: h.attempt.toLowerCase(), noRetry: h.noRetry.toLowerCase() };
}

/**
 * The whole milliseconds left before `ctx.deadline` on the context's own clock, less
 * `marginMs`, rounded down (never up: a callee must not get more time than its caller has); `undefined` without a deadline.
 */
export function remainingMs(ctx: Pick<ExecutionContext, 'deadline' | 'clock'>, marginMs = 0): number | undefined {
  if (ctx.deadline === undefined) return undefined;
  const left = Math.floor(ctx.deadline - ctx.clock.now() - marginMs);
  return left > 0 ? left : 0;
}

/** Reads a duration header: decimal digits only (at most 12), else `undefined` (a malformed deadline is ignored, as gRPC does). */
export function parseRemainingMs(value: string | readonly string[] | undefined | null): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v !== 'string' || !/^\s*\d{1,12}\s*$/.test(v)) return undefined;
  return Number(v.trim());
}

/** Reads an attempt header: an integer >= 1, else 1. */
export function parseAttempt(value: string | readonly string[] | undefined | null): number {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v !== 'string' || !/^\s*\d{1,9}\s*$/.test(v)) return 1;
  const n = Number(v.trim());
  return n >= 1 ? n : 1;
}

/** The criticality an incoming request asked for, honoured only when `trusted`; anything else is `'default'`. */
export function parseCriticality(value: string | readonly string[] | undefined | null, trusted: boolean): Criticality {
  const v = Array.isArray(value) ? value[0] : value;
  const c = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
  return trusted && isCriticality(c) ? c : 'default';
}

/**
 * The execution context a server guard gives a request's handler: the
 * caller's deadline (clamped to the server's maximum), its criticality in
 * `meta.criticality`, a signal that aborts when the deadline passes or the
 * client goes away. Pass it to `policy.execute(op, ctx)` and to
 * `resilientFetch`'s `ctx`, so every policy inside obeys the deadline and
 * calls further down carry it on.
 */
export interface IncomingContext extends ExecutionContext {
  /** Which try of the caller's this request is (its attempt header; 1 when absent). */
  readonly callerAttempt: number;
  /** The criticality honoured for this request (`meta.criticality`). */
  readonly criticality: Criticality;
}

/** A request's state on the server side: its context, and whether a call it made downstream failed. */
export class Incoming {
  /** True once a call made under this request's context failed after its own retries. */
  downstreamFailed = false;
  private readonly ctrl = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The handler's context. */
  readonly ctx: IncomingContext;

  constructor(deadline: number | undefined, criticality: Criticality, callerAttempt: number) {
    // One meta object per request: calls made under it are found again by it (see noteDownstreamFailure).
    const meta = Object.freeze({ [CRITICALITY_META]: criticality });
    byMeta.set(meta, this);
    this.ctx = { signal: this.ctrl.signal, deadline, attempt: 1, key: undefined, meta, clock: systemClock, callerAttempt, criticality };
    // A deadline past the longest timer (about 24.8 days) is as good as none: such a timer would fire at once.
    if (deadline !== undefined && deadline - systemClock.now() <= LONGEST_TIMER_MS) {
      this.timer = setTimeout(() => this.ctrl.abort(new TimeoutError('deadline', 'the caller\'s deadline passed')), Math.max(0, deadline - systemClock.now()));
      this.timer.unref?.();
    }
  }

  /** The client went away before the answer: everything still running for it is cancelled. */
  cancel(reason: unknown): void {
    this.end();
    if (!this.ctrl.signal.aborted) this.ctrl.abort(reason);
  }

  /** The request is over: the deadline timer stops. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const byMeta = new WeakMap<object, Incoming>();

/** The longest delay a `setTimeout` honours (2^31 − 1 ms). */
const LONGEST_TIMER_MS = 2_147_483_647;

/**
 * What a server reads of a request: when it must be answered by (its own clock),
 * `'expired'` when the caller's time is already up, or `undefined` for no deadline.
 */
export function incomingDeadline(remaining: number | undefined, maxMs: number | undefined, now: number): number | 'expired' | undefined {
  if (remaining !== undefined && remaining <= 0) return 'expired';
  const ms = Math.min(remaining ?? Infinity, maxMs ?? Infinity);
  return ms === Infinity ? undefined : now + ms;
}

/** Tells the request that `ctx` was made under (if any) that a call it made downstream failed. */
export function noteDownstreamFailure(ctx: Pick<ExecutionContext, 'meta'> | undefined): void {
  const incoming = ctx === undefined ? undefined : byMeta.get(ctx.meta);
  if (incoming !== undefined) incoming.downstreamFailed = true;
}

const DOWNSTREAM = /* @__PURE__ */ Symbol.for('breakwater.downstream');

/** Marks `error` as the final failure of a call to another service (after that call's own retries). */
export function markDownstream(error: unknown): void {
  if (typeof error !== 'object' || error === null) return;
  try {
    Object.defineProperty(error, DOWNSTREAM, { value: true, configurable: true });
  } catch {
    // a frozen error stays unmarked: the request's context still knows
  }
}

/**
 * True when a handler's failure means "retrying me will not help": a call it
 * made to another service failed after that call's own retries (or was
 * answered "do not retry"), or a breaker, limiter or shedder refused it.
 * The server guards answer such a failure with the `noRetry` marker.
 */
export function isDownstreamFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  return (error as { [DOWNSTREAM]?: unknown })[DOWNSTREAM] === true || isShedRejection(error);
}

/**
 * A call answered with the "do not retry" marker: the service called has
 * already retried its own dependency (or refused), so trying it again only
 * multiplies the load (Google SRE, "Handling Overload": retry only at the layer
 * right above the one that fails). Its code is `OVERLOADED` (Google's
 * "overloaded; don't retry"), so `retry` does not retry it, `isOverloadedError`
 * is true, a fallback still answers it, and a breaker counts it as neither
 * success nor failure.
 *
 * @example
 * ```ts
 * catch (e) { if (isNoRetryError(e)) console.log(e.status, 'gave up below'); }
 * ```
 */
export class NoRetryError extends ResilienceError {
  readonly code = 'OVERLOADED' as const;
  override readonly name = 'NoRetryError';
  /** Always `true`. */
  readonly noRetry = true as const;
  /** The HTTP status (or gRPC code) the service answered with. */
  readonly status: number;

  constructor(policy: string, status: number, message: string, options?: { cause?: unknown }) {
    super(message, policy, options);
    this.status = status;
  }
}

/** True for a {@link NoRetryError} (from any copy of the package), or any value carrying `noRetry: true` and the overload brand. */
export function isNoRetryError(value: unknown): value is NoRetryError {
  return isShedRejection(value) && (value as { noRetry?: unknown }).noRetry === true;
}
