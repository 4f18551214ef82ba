import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { Guard, runNext, toContext, type Context } from '../../lib/context.js';
import { ConfigError, RateLimitedError } from '../../lib/errors.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { isRateAlgorithm, reconfigureAlgorithm, type LimiterHost, type RateAlgorithm } from './algorithm.js';
import { algorithmFromData } from './from-data.js';
import { rateLimiterOptions, type RateLimiterOptions } from './options.js';
import { criticalityOf } from '../../lib/criticality.js';
import { refusedFields, reserveFor, type Reserve } from '../../lib/shedding.js';

/**
 * Admits calls at a bounded rate (rate limiting, the first line of
 * defence): the algorithm decides, a refused call rejects at once with
 * `RateLimitedError` carrying `retryAfterMs`, when a call would be admitted
 * (an HTTP server's `Retry-After`). `retry` never retries it, as it never
 * retries any load-shedding rejection: put the limiter outside the retry. A
 * leaky bucket makes calls wait their turn instead, up to its capacity; the
 * wait is cancellable.
 *
 * Lower criticality is refused first (`ctx.meta.criticality`): the
 * algorithm admits a `sheddable` call only while less than
 * `1 − reserve.sheddable` of its limit is used (tokens, window, queue), a
 * `default` one under `1 − reserve.default`; a `critical` one may use all.
 *
 * @example
 * ```ts
 * const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 20 }) });
 * await limiter.execute(() => callPartnerApi());
 * ```
 */
export class RateLimiterPolicy extends PolicyBase implements LimiterHost {
  /** The algorithm holding the limit. */
  readonly algorithm: RateAlgorithm;

  /**
   * Hot reload of the limit: an algorithm as data of the kind the limiter has takes its new figures in place,
   * keeping its state: a token bucket's rate and burst (its tokens kept), a leaky bucket's rate and capacity (its
   * queue kept), a sliding window's limit (its counts kept; `windowMs` and `buckets` shape it). Another kind is a
   * `ConfigError` naming `algorithm` (build a new limiter); a bad value or shape is one naming `algorithm.<option>`;
   * neither changes anything.
   */
  reconfigure(options: { algorithm: unknown }): void {
    const data = options.algorithm as { kind?: unknown } | null;
    const current = this.algorithm as RateAlgorithm & { reconfigure?: (o: object) => void };
    if (typeof data !== 'object' || data === null || data.kind !== current.kind || current.reconfigure === undefined) {
      throw new ConfigError(this.name, [{ path: 'algorithm', message: 'cannot change in place to another kind of algorithm; build a new limiter' }]);
    }
    const { kind: _k, ...rest } = data as Record<string, unknown>;
    reconfigureAlgorithm(current, rest, this.name);
  }

  private readonly reserve: Reserve;

  constructor(options: RateLimiterOptions) {
    const o = checkOptions(rateLimiterOptions, options, 'rateLimiter');
    super(o.name, o.clock ?? systemClock);
    this.algorithm = isRateAlgorithm(o.algorithm) ? o.algorithm : algorithmFromData(o.algorithm);
    this.algorithm.attach?.(this);
    this.reserve = o.reserve;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const scope = c.scope;
    const refused = refuseAborted(c);
    if (refused !== undefined) return refused;
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    let verdict: number | Promise<number>;
    try {
      const reserve = reserveFor(this.reserve, criticalityOf(c));
      // Custom algorithms written before reserves get the one argument they know.
      verdict = reserve === 0 ? this.algorithm.acquire(c) : this.algorithm.acquire(c, reserve);
    } catch (error) {
      verdict = Promise.reject(error);
    }
    if (typeof verdict === 'number') return verdict === 0 ? this.run(op, c, next, start) : this.refuse(verdict, start, c.meta);
    const waited = scope === undefined ? verdict : new Guard<number>(scope, false).watch(verdict);
    return waited.then(
      (n) => (n === 0 ? this.run(op, c, next, start) : this.refuse(n, start, c.meta)),
      (error: unknown) => {
        if (this.events.observed) this.outcome(thrownOutcome(error, c), start, error);
        throw error;
      },
    );
  }

  /** @internal @hidden the algorithm started or stopped limiting locally (a `LimiterHost`: algorithms get the policy itself). */
  localFallback(active: boolean, error?: unknown): void {
    if (this.events.observed) this.events.emit({ type: 'localFallback', policy: this.name, active, error });
  }

  private run<R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number): Promise<R> {
    const p = runNext(op, c, next);
    if (!this.events.observed) return p;
    return p.then(
      (value) => {
        this.outcome('success', start);
        return value;
      },
      (error: unknown) => {
        this.outcome(thrownOutcome(error, c), start, error);
        throw error;
      },
    );
  }

  private refuse(retryAfterMs: number, start: number, meta: Readonly<Record<string, string>>): Promise<never> {
    const error = new RateLimitedError(this.name, retryAfterMs);
    if (this.events.observed) {
      this.events.emit({ type: 'limitRejected', policy: this.name, reason: 'rateLimited', retryAfterMs, ...refusedFields(meta) });
      this.outcome(thrownOutcome(error, undefined), start, error);
    }
    return Promise.reject(error);
  }
}

/**
 * Makes a {@link RateLimiterPolicy} over an algorithm: `tokenBucket({ rate,
 * burst })`, `leakyBucket({ rate, capacity })`, `slidingWindow({ limit,
 * windowMs })`, or `redisTokenBucket(redis, ...)` from `breakwater/redis` for
 * a limit shared by many processes. Rates are per second.
 *
 * @example
 * ```ts
 * const p = policy().rateLimiter({ algorithm: slidingWindow({ limit: 600, windowMs: 60_000 }) }).retry();
 * ```
 */
export function rateLimiter(options: RateLimiterOptions): RateLimiterPolicy {
  return new RateLimiterPolicy(options);
}
