import { isRateLimitedError, isShedRejection } from '../../lib/errors.js';
import { isThenable } from '../../lib/thenable.js';

/**
 * One admitted call's ticket: settle it exactly once with the call's outcome.
 * breakwater's breakers hand these out from `allow()`.
 */
export interface Permit {
  /** The call succeeded. */
  success(): void;
  /** The call failed (counts against the dependency). */
  failure(error?: unknown): void;
  /** The call ended without an outcome worth recording (the client went away); frees the slot. */
  release(): void;
}

/**
 * What the server middleware and interceptors need of a breaker, limiter or
 * shedder: `allow()` returns a {@link Permit}, or throws one of breakwater's
 * shedding rejections (`BrokenCircuitError`, `RateLimitedError`,
 * `BulkheadRejectedError`, `ConcurrencyLimitedError`) when the call must not
 * run. An `adaptiveLimiter` is one as it is.
 *
 * @example
 * ```ts
 * const source: PermitSource = breaker({ name: 'GET://users' });
 * ```
 */
export interface PermitSource {
  /** Names the source in logs and errors. */
  readonly name: string;
  /** Admits a call, or throws a shedding rejection. */
  allow(): Permit;
}

/**
 * A permit source that may take time to admit a call (a bulkhead's queue, a
 * rate limiter shared through Redis): `allow()` returns a permit or a promise
 * of one, and rejects or throws a shedding rejection to shed. The HTTP guards
 * take these; the gRPC interceptors need a synchronous {@link PermitSource}.
 *
 * @example
 * ```ts
 * const source: AsyncPermitSource = policySource(bulkhead({ limit: 10, queue: 20 }));
 * ```
 */
export interface AsyncPermitSource {
  /** Names the source in logs and errors. */
  readonly name: string;
  /**
   * Admits a call (now or later), or throws / rejects with a shedding rejection. The HTTP guards pass what they
   * know of the request: its criticality in `meta.criticality` and its deadline, so a source that sheds by
   * criticality, or queues, can use them.
   */
  allow(request?: AdmitRequest): Permit | PromiseLike<Permit>;
}

/** What an HTTP guard tells a permit source of the request it admits. */
export interface AdmitRequest {
  /** Labels of the request; `meta.criticality` is the criticality honoured for it. */
  readonly meta: Readonly<Record<string, string>>;
  /** Clock time (epoch ms) by which the request must be answered, when it has a deadline. */
  readonly deadline: number | undefined;
}

export { isThenable };

/**
 * True for an object with an `allow()` method.
 * @example
 * ```ts
 * if (isPermitSource(breaker)) protectHandler(handler, breaker);
 * ```
 */
export function isPermitSource(value: unknown): value is PermitSource & AsyncPermitSource {
  return typeof value === 'object' && value !== null && typeof (value as PermitSource).allow === 'function';
}

/** How to answer a shed call on HTTP: 429 for rate limits, 503 for the rest, and the seconds for `Retry-After`. */
export interface ShedAnswer {
  readonly status: 429 | 503;
  readonly retryAfterSeconds: number;
}

/**
 * Maps a rejection thrown by `allow()` to an HTTP answer, or `undefined` when
 * `error` is not one of breakwater's shedding rejections (then it is a bug to
 * rethrow). `Retry-After` is the rejection's own `retryAfterMs` rounded up to
 * whole seconds, else `defaultRetryAfterMs`, and never below 1.
 *
 * @example
 * ```ts
 * shedAnswer(new RateLimitedError('api', 2_500), 1_000); // { status: 429, retryAfterSeconds: 3 }
 * ```
 */
export function shedAnswer(error: unknown, defaultRetryAfterMs: number): ShedAnswer | undefined {
  if (!isShedRejection(error)) return undefined;
  const hinted = (error as { retryAfterMs?: unknown }).retryAfterMs;
  const ms = typeof hinted === 'number' && Number.isFinite(hinted) && hinted >= 0 ? hinted : defaultRetryAfterMs;
  return { status: isRateLimitedError(error) ? 429 : 503, retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) };
}

/**
 * Permit sources by key (`GET://users/:id`), made on first use by `factory`.
 * At most `maxKeys` are kept; calls with further keys share the source of the
 * key `overflowKey`, so an unbounded key space cannot grow memory.
 */
export class KeyedSources<S extends AsyncPermitSource = PermitSource> {
  private readonly sources = new Map<string, S>();

  constructor(
    private readonly factory: (key: string) => S,
    private readonly maxKeys: number,
    private readonly overflowKey = '*',
  ) {}

  /** The source for `key`. */
  get(key: string): S {
    let source = this.sources.get(key);
    if (source !== undefined) return source;
    if (this.sources.size >= this.maxKeys) {
      source = this.sources.get(this.overflowKey);
      if (source !== undefined) return source;
      key = this.overflowKey;
    }
    source = this.factory(key);
    this.sources.set(key, source);
    return source;
  }

  /** How many keys have a source. */
  get size(): number {
    return this.sources.size;
  }
}
