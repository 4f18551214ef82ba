import { ConfigError } from '../../lib/errors.js';
import type { ExecutionContext } from '../../lib/policy.js';

/**
 * What a rate limiter tells the algorithm it was given to. Distributed
 * algorithms call `localFallback` when they lose and regain their store.
 */
export interface LimiterHost {
  /** The algorithm started (`true`) or stopped (`false`) limiting locally because its store is unreachable. */
  localFallback(active: boolean, error?: unknown): void;
}

/**
 * A rate-limiting algorithm: `tokenBucket`, `leakyBucket`, `slidingWindow`,
 * `redisTokenBucket` (from `breakwater/redis`) or your own. One instance holds
 * one limit's state; give each limiter its own (or share one on purpose).
 *
 * @example
 * ```ts
 * const everyOther: RateAlgorithm = { kind: 'everyOther', n: 0, acquire() { return this.n++ % 2 === 0 ? 0 : 1; } } as RateAlgorithm;
 * ```
 */
export interface RateAlgorithm {
  /** Names the algorithm (`'tokenBucket'`, ...). */
  readonly kind: string;
  /**
   * Asks for one permit for the call `ctx`: `0` when admitted (now, or
   * after a wait the algorithm did), or a positive number of milliseconds
   * after which a call would be admitted when refused. May answer with a
   * promise; a rejection is the call's error. `reserve` (in [0, 1), 0 when
   * left out) is the share of the limit this call may not use, kept for more
   * critical calls: admit it only while less than `1 − reserve` of the limit
   * is in use. An algorithm that ignores it treats every criticality alike.
   */
  acquire(ctx: ExecutionContext, reserve?: number): number | Promise<number>;
  /** Called once by each limiter the algorithm is given to. */
  attach?(host: LimiterHost): void;
  /**
   * True when, at clock time `now`, it holds nothing a new one would not (a full token bucket, an empty window, no
   * call waiting): a keyed limiter may then drop it without changing any decision. Left out, the algorithm is
   * taken to hold nothing: a keyed limiter drops it once unused for `idleMs`, or to make room for a new key.
   */
  idle?(now: number): boolean;
}

/** True for a {@link RateAlgorithm}. */
export function isRateAlgorithm(value: unknown): value is RateAlgorithm {
  const a = value as RateAlgorithm;
  return typeof value === 'object' && value !== null && typeof a.kind === 'string' && typeof a.acquire === 'function';
}

/** Milliseconds to wait, rounded up (ignoring float noise), never below 1: a refusal always asks for some wait. */
export function retryAfter(ms: number): number {
  return ms > 1 ? Math.ceil(ms - 1e-6) : 1;
}

/** Float noise tolerated when comparing token counts (0.1 + 0.2 is not 0.3). */
export const EPSILON = 1e-9;

/**
 * @internal Reloads `algorithm` in place with new figures (`options`: its data without `kind`), if it can reload;
 * a refusal is rethrown as `owner`'s `ConfigError`, each path under `algorithm.`.
 */
export function reconfigureAlgorithm(algorithm: RateAlgorithm, options: object, owner: string): void {
  try {
    (algorithm as { reconfigure?: (o: object) => void }).reconfigure?.(options);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(owner, error.issues.map((i) => ({ path: `algorithm.${i.path}`, message: i.message })));
    throw error;
  }
}
