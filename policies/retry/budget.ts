import { RollingHistogram } from '../../lib/histogram.js';
import { RollingWindow } from '../../lib/window.js';
import { checkOptions, defineRule, intAtLeast, numberAtLeast, object, positiveMs, ratio, type RuleOutput, withDefault } from '../../lib/options.js';
import { sloRetryBudget } from '../../lib/sla.js';

/**
 * Limits the retries a retry policy makes. A refused retry is
 * not made: the last error is rethrown. `tokenBudget` and `sloBudget` are the
 * two kinds shipped; any object with these methods works.
 */
export interface RetryBudget {
  /** One call entered the policy (its first attempt is about to start). */
  onCall(now: number): void;
  /** Asks for one more retry of a call that has made `retriesSoFar`; `false` refuses it. */
  tryRetry(now: number, retriesSoFar: number): boolean;
  /** One attempt settled after `durationMs` (for latency-aware budgets). */
  onAttempt?(durationMs: number, now: number): void;
}

/** True for a {@link RetryBudget}. */
export function isRetryBudget(value: unknown): value is RetryBudget {
  const b = value as RetryBudget;
  return typeof value === 'object' && value !== null && typeof b.onCall === 'function' && typeof b.tryRetry === 'function';
}



/**
 * Options of {@link tokenBudget}.
 * @example
 * ```ts
 * tokenBudget({ ratio: 0.1, minPerSecond: 10 });
 * ```
 */
export interface TokenBudgetOptions {
  /**
   * Retries may be at most this share of first attempts within the window.
   * @defaultValue 0.1
   */
  ratio?: number | undefined;
  /**
   * Retries allowed per second whatever the traffic, so quiet services can still retry.
   * @defaultValue 10
   */
  minPerSecond?: number | undefined;
  /**
   * How far back calls and retries count.
   * @defaultValue 10_000
   */
  windowMs?: number | undefined;
}

/** The rules of {@link TokenBudgetOptions}. */
export const tokenBudgetOptions = /* @__PURE__ */ defineRule(() => object({
  ratio: withDefault(ratio, 0.1),
  minPerSecond: withDefault(numberAtLeast(0), 10),
  windowMs: withDefault(positiveMs, 10_000),
}));

const SLICES = 10;

class TokenBudget implements RetryBudget {
  /** Per slice: calls (counter 0) and retries (counter 1). */
  private readonly window: RollingWindow;
  private readonly floor: number;

  constructor(private readonly o: RuleOutput<typeof tokenBudgetOptions>) {
    this.window = new RollingWindow(SLICES, o.windowMs / SLICES, 0);
    this.floor = (o.minPerSecond * o.windowMs) / 1_000;
  }

  onCall(now: number): void {
    this.window.add(now, 1, 0, 0);
  }

  tryRetry(now: number): boolean {
    const w = this.window;
    w.read(now);
    const { v0: calls, v1: retries } = w;
    if (retries + 1 > this.o.ratio * calls + this.floor) return false;
    w.add(now, 0, 1, 0);
    return true;
  }
}

/**
 * A retry budget like Finagle's RetryBudget and gRPC's retry throttling:
 * within a rolling window, retries may be at most `ratio` of first attempts,
 * plus a floor of `minPerSecond`. Under a total outage a retry policy with
 * `tokenBudget({ ratio: 0.1 })` calls the dependency about 1.1× per call
 * (plus the floor) instead of `maxAttempts`×. Share one budget among the
 * policies calling one dependency.
 *
 * @example
 * ```ts
 * retry({ maxAttempts: 3, budget: tokenBudget({ ratio: 0.1, minPerSecond: 10 }) });
 * ```
 */
export function tokenBudget(options: TokenBudgetOptions = {}): RetryBudget {
  return new TokenBudget(checkOptions(tokenBudgetOptions, options, 'tokenBudget'));
}



/**
 * Options of {@link sloBudget}.
 * @example
 * ```ts
 * sloBudget({ sloWindowMs: 60_000, fraction: 0.1, maxRetries: 3 });
 * ```
 */
export interface SloBudgetOptions {
  /**
   * The SLO window retries must fit in.
   * @defaultValue 60_000
   */
  sloWindowMs?: number | undefined;
  /**
   * Share of the SLO window retrying may spend.
   * @defaultValue 0.1
   */
  fraction?: number | undefined;
  /**
   * Hard cap on retries per call.
   * @defaultValue 3
   */
  maxRetries?: number | undefined;
  /**
   * Window of the live p99.
   * @defaultValue 300_000 (the last 5 minutes)
   */
  latencyWindowMs?: number | undefined;
}

/** The rules of {@link SloBudgetOptions}. */
export const sloBudgetOptions = /* @__PURE__ */ defineRule(() => object({
  sloWindowMs: withDefault(positiveMs, 60_000),
  fraction: withDefault(ratio, 0.1),
  maxRetries: withDefault(intAtLeast(0), 3),
  latencyWindowMs: withDefault(positiveMs, 300_000),
}));

class SloBudget implements RetryBudget {
  private readonly latency: RollingHistogram;

  constructor(private readonly o: RuleOutput<typeof sloBudgetOptions>) {
    this.latency = new RollingHistogram({ windowMs: o.latencyWindowMs });
  }

  onCall(): void {}

  onAttempt(durationMs: number, now: number): void {
    this.latency.record(durationMs, now);
  }

  tryRetry(now: number, retriesSoFar: number): boolean {
    return retriesSoFar < this.allowed(now);
  }

  /** Retries a call may make now. */
  allowed(now: number): number {
    const p99Ms = this.latency.quantile(0.99, now);
    return sloRetryBudget({ p99Ms, sloWindowMs: this.o.sloWindowMs, fraction: this.o.fraction, maxRetries: this.o.maxRetries });
  }
}

/**
 * A retry budget sized from the SLO ({@link sloRetryBudget}): each call may retry
 * `min(maxRetries, floor(fraction × sloWindowMs / max(100, 2 × p99)))` times,
 * where p99 is the live latency of this policy's attempts over the last
 * `latencyWindowMs` (a log-bucketed rolling histogram, within 10 %). As
 * latency grows, retries shrink to 0, so retrying cannot eat the SLO.
 *
 * @example
 * ```ts
 * retry({ maxAttempts: 4, budget: sloBudget({ sloWindowMs: 60_000, fraction: 0.1, maxRetries: 3 }) });
 * ```
 */
export function sloBudget(options: SloBudgetOptions = {}): RetryBudget & { allowed(now: number): number } {
  return new SloBudget(checkOptions(sloBudgetOptions, options, 'sloBudget'));
}
