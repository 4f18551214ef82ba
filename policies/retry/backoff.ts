import { checkOptions, defineRule, nonNegativeMs, numberAtLeast, object, oneOf, positiveMs, type RuleOutput, withDefault } from '../../lib/options.js';

/** How retry spreads the delays of simultaneous callers. See {@link exponential}. */
export type Jitter = 'none' | 'full' | 'equal' | 'decorrelated' | 'proportional';

/**
 * Computes the delay before a retry. `retry` is 1 before the first retry;
 * `previous` is the delay used before the last one (0 before the first).
 */
export interface Backoff {
  /** Milliseconds to wait before retry number `retry`. */
  delay(retry: number, error: unknown, previous: number, random: () => number): number;
  /**
   * The longest delay it ever gives, when it has such a bound; `retry` takes it
   * as the default of `maxDelayMs`.
   */
  readonly max?: number;
}

/** A custom backoff: `(retry, error) => ms`, `retry` being 1 before the first retry. */
export type BackoffFunction = (retry: number, error: unknown) => number;

class ConstantBackoff implements Backoff {
  constructor(private readonly ms: number) {}
  delay(): number {
    return this.ms;
  }
}

class LinearBackoff implements Backoff {
  constructor(
    private readonly ms: number,
    private readonly step: number,
  ) {}
  delay(retry: number): number {
    return this.ms + this.step * (retry - 1);
  }
}


/**
 * Options of {@link exponential}.
 * @example
 * ```ts
 * exponential({ initial: 50, max: 2_000, jitter: 'equal' });
 * ```
 */
export interface ExponentialOptions {
  /**
   * Milliseconds before the first retry.
   * @defaultValue 100
   */
  initial?: number | undefined;
  /**
   * Each delay is this many times the one before (>= 1).
   * @defaultValue 2
   */
  multiplier?: number | undefined;
  /**
   * The longest delay, at least `initial`.
   * @defaultValue 10_000
   */
  max?: number | undefined;
  /**
   * How delays of simultaneous callers are spread; see {@link exponential}.
   * @defaultValue `'full'`
   */
  jitter?: Jitter | undefined;
}

/** A cross-field rule of exponential backoff (JSON Schema cannot say it). */
export const maxAtLeastInitial = (o: { initial: number; max: number }): boolean => o.max >= o.initial;

/** The rules of {@link ExponentialOptions}. */
export const exponentialOptions = /* @__PURE__ */ defineRule(() => object(
  {
    initial: withDefault(positiveMs, 100),
    multiplier: withDefault(numberAtLeast(1), 2),
    max: withDefault(positiveMs, 10_000),
    jitter: withDefault(oneOf(['none', 'full', 'equal', 'decorrelated', 'proportional']), 'full'),
  },
  (o, add) => {
    if (!maxAtLeastInitial(o)) add('max must be >= initial', ['max']);
  },
));



class ExponentialBackoff implements Backoff {
  constructor(private readonly o: RuleOutput<typeof exponentialOptions>) {}

  get max(): number {
    return this.o.max;
  }

  delay(retry: number, _error: unknown, previous: number, random: () => number): number {
    const { initial, multiplier, max, jitter } = this.o;
    const base = Math.min(max, initial * multiplier ** (retry - 1));
    switch (jitter) {
      case 'none':
        return base;
      case 'full':
        return random() * base;
      case 'equal':
        return base / 2 + (random() * base) / 2;
      case 'decorrelated': {
        // AWS "decorrelated jitter": grows from the previous delay, not the attempt count.
        const prev = previous > 0 ? previous : initial;
        return Math.min(max, initial + random() * (prev * 3 - initial));
      }
      case 'proportional':
        // base·2^i + rand[0, base·i): the jitter's ceiling grows with the retry count.
        return Math.min(max, initial * 2 ** retry + random() * initial * retry);
    }
  }
}

/**
 * The same delay before every retry.
 * @example
 * ```ts
 * retry({ maxAttempts: 5, backoff: constant(200) });
 * ```
 */
export function constant(ms: number): Backoff {
  return new ConstantBackoff(checkOptions(nonNegativeMs, ms, 'constant'));
}

const linearOptions = /* @__PURE__ */ object({ ms: nonNegativeMs, step: nonNegativeMs });

/**
 * `ms` before the first retry, `step` more before each next one.
 * @example
 * ```ts
 * retry({ backoff: linear(100, 50) }); // 100, 150, 200 ms
 * ```
 */
export function linear(ms: number, step: number): Backoff {
  const o = checkOptions(linearOptions, { ms, step }, 'linear');
  return new LinearBackoff(o.ms, o.step);
}

/**
 * Exponential backoff, `min(max, initial·multiplier^(retry−1))`, with jitter:
 * `'none'`; `'full'` (random in [0, d)); `'equal'` (d/2 + random in [0, d/2));
 * `'decorrelated'` (AWS: min(max, random in [initial, previous·3)));
 * `'proportional'` (initial·2^retry + random in [0, initial·retry), capped at max: the jitter grows with the retry count).
 * Defaults: initial 100 ms, multiplier 2, max 10 s, full jitter: the default backoff of `retry`.
 * @example
 * ```ts
 * retry({ backoff: exponential({ initial: 50, max: 2_000, jitter: 'equal' }) });
 * ```
 */
export function exponential(options: ExponentialOptions = {}): Backoff {
  return new ExponentialBackoff(checkOptions(exponentialOptions, options, 'exponential'));
}

/** Adapts a custom backoff function. */
export function fromFunction(fn: BackoffFunction): Backoff {
  return { delay: (retry, error) => fn(retry, error) };
}

/** True for a {@link Backoff} object. */
export function isBackoff(value: unknown): value is Backoff {
  return typeof value === 'object' && value !== null && typeof (value as Backoff).delay === 'function';
}
