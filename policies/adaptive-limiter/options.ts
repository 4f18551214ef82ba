import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import { clockSchema, fnSchema, intAtLeast, nameSchema, positiveMs, ratio } from '../../lib/schemas.js';

const finiteAtLeast = (min: number) =>
  z.number({ message: `expected a finite number >= ${min}` }).min(min, { message: `expected a finite number >= ${min}` });

/** Options of the gradient algorithm (Netflix concurrency-limits' Gradient2). */
export interface GradientOptions {
  kind: 'gradient';
  /**
   * How much slower than the no-load baseline a window's mean response time may be before the limit is lowered
   * (Gradient2 `rttTolerance`).
   * @defaultValue 1.5
   */
  tolerance?: number | undefined;
  /**
   * Share of the new estimate taken when lowering the limit (Gradient2 `smoothing`); growth is not smoothed.
   * @defaultValue 0.2
   */
  smoothing?: number | undefined;
  /**
   * How much the limit grows per window while response times stay near the baseline (Gradient2 `queueSize`).
   * @defaultValue 4
   */
  queueSize?: number | undefined;
  /**
   * Factor the limit is multiplied by after a window with a drop (a timeout, or an overload error).
   * @defaultValue 0.9
   */
  backoffRatio?: number | undefined;
  /**
   * Windows the no-load baseline averages over (Gradient2 `longWindow`): the larger, the slower it follows a
   * dependency that gets slower for good.
   * @defaultValue 600
   */
  baselineWindows?: number | undefined;
}

/** Options of the AIMD algorithm: additive increase, multiplicative decrease on drops. */
export interface AimdOptions {
  kind: 'aimd';
  /**
   * Factor the limit is multiplied by after a window with a drop (Netflix AIMD `backoffRatio`).
   * @defaultValue 0.9
   */
  backoffRatio?: number | undefined;
  /**
   * How much the limit grows per window without a drop while at least half of it is in use.
   * @defaultValue 1
   */
  increase?: number | undefined;
  /**
   * An answer slower than this many milliseconds counts as a drop (Netflix AIMD `timeout`).
   * @defaultValue none: only timeouts and overload errors are drops
   */
  slowMs?: number | undefined;
}

/** Options of the Vegas algorithm: the limit follows an estimate of the calls queued at the dependency. */
export interface VegasOptions {
  kind: 'vegas';
  /**
   * Below `alpha × log10(limit)` estimated queued calls the limit grows (Netflix Vegas `alpha`).
   * @defaultValue 3
   */
  alpha?: number | undefined;
  /**
   * Above `beta × log10(limit)` estimated queued calls the limit shrinks (Netflix Vegas `beta`); must exceed `alpha`.
   * @defaultValue 6
   */
  beta?: number | undefined;
}

/**
 * Options of {@link adaptiveLimiter}. The defaults suit a Node service
 * calling an HTTP dependency with a per-attempt timeout of a few hundred
 * milliseconds; docs/adaptive-limiting.md gives the reasoning.
 *
 * @example
 * ```ts
 * adaptiveLimiter({ algorithm: 'aimd', initialLimit: 10, maxLimit: 100 });
 * ```
 */
export interface AdaptiveLimiterOptions {
  /**
   * How the limit moves: `'gradient'` (response times against a no-load baseline, Netflix's Gradient2), `'aimd'`
   * (grow by a step, shrink on drops) or `'vegas'` (an estimate of the calls queued at the dependency); or an
   * object with `kind` and that algorithm's tuning.
   * @defaultValue `'gradient'`
   */
  algorithm?: 'gradient' | 'aimd' | 'vegas' | GradientOptions | AimdOptions | VegasOptions | undefined;
  /**
   * The limit before the first window has been measured.
   * @defaultValue 20
   */
  initialLimit?: number | undefined;
  /**
   * The limit never falls below this.
   * @defaultValue 1
   */
  minLimit?: number | undefined;
  /**
   * The limit never rises above this.
   * @defaultValue 200
   */
  maxLimit?: number | undefined;
  /**
   * Shortest sampling window in milliseconds: the limit moves at most once per window, which lasts at least this long
   * and at least twice the fastest answer it saw (Netflix's `minWindowTime`).
   * @defaultValue 100
   */
  windowMs?: number | undefined;
  /**
   * A window that has not measured `minSamples` calls after this many milliseconds is discarded unused, so a quiet
   * period never moves the limit on a handful of calls.
   * @defaultValue 1_000
   */
  maxWindowMs?: number | undefined;
  /**
   * Calls a window must measure before it can move the limit.
   * @defaultValue 10
   */
  minSamples?: number | undefined;
  /**
   * Which thrown values say the dependency is overloaded (an HTTP 429 or 503, a gRPC RESOURCE_EXHAUSTED): they count as
   * drops, like timeouts. Other failures are not measured: a dependency that fails fast tells nothing of its capacity,
   * and its fast answers would drag the baseline down.
   * @defaultValue none: only timeouts are drops
   */
  isOverload?: ((error: unknown) => boolean) | undefined;
  /** @defaultValue `'adaptiveLimiter'` */
  name?: string | undefined;
  /** @defaultValue the system clock */
  clock?: Clock | undefined;
}

/** The zod schema of {@link GradientOptions}. */
export const GradientOptionsSchema = z
  .object({
    kind: z.literal('gradient'),
    tolerance: finiteAtLeast(1).default(1.5),
    smoothing: ratio.refine((v) => v > 0, { message: 'expected a number in (0, 1]' }).default(0.2),
    queueSize: finiteAtLeast(0).default(4),
    backoffRatio: ratio.refine((v) => v >= 0.5 && v < 1, { message: 'expected a number in [0.5, 1)' }).default(0.9),
    baselineWindows: intAtLeast(1).default(600),
  })
  .strict();

/** The zod schema of {@link AimdOptions}. */
export const AimdOptionsSchema = z
  .object({
    kind: z.literal('aimd'),
    backoffRatio: ratio.refine((v) => v >= 0.5 && v < 1, { message: 'expected a number in [0.5, 1)' }).default(0.9),
    increase: z.number({ message: 'expected a finite number > 0' }).positive({ message: 'expected a finite number > 0' }).default(1),
    slowMs: positiveMs.optional(),
  })
  .strict();

/** The zod schema of {@link VegasOptions}. */
export const VegasOptionsSchema = z
  .object({
    kind: z.literal('vegas'),
    alpha: finiteAtLeast(0).default(3),
    beta: finiteAtLeast(0).default(6),
  })
  .strict()
  .refine((o) => o.beta > o.alpha, { message: 'beta must exceed alpha', path: ['beta'] });

const algorithmSchemas = { gradient: GradientOptionsSchema, aimd: AimdOptionsSchema, vegas: VegasOptionsSchema };

const ALGORITHM = "expected 'gradient', 'aimd', 'vegas' or an object with kind";

/** An algorithm as data: its name alone (its defaults) or an object with `kind`; either parses to the object with defaults. */
export const LimitAlgorithmSchema = z.union([
  // First, so that an object's own mistake (`tolerance: NaN`) is the one reported, at its path.
  z.discriminatedUnion('kind', [GradientOptionsSchema, AimdOptionsSchema, VegasOptionsSchema], {
    error: (issue) => (issue.code === 'invalid_union' ? "expected kind 'gradient', 'aimd' or 'vegas'" : ALGORITHM),
  }),
  z.enum(['gradient', 'aimd', 'vegas'], { message: ALGORITHM }).transform((kind) => algorithmSchemas[kind].parse({ kind })),
]);

/** An algorithm's options with defaults applied. */
export type ResolvedAlgorithm = z.output<typeof LimitAlgorithmSchema>;

/** The data part of {@link AdaptiveLimiterOptions}, shared with the config entry. */
export const AdaptiveLimiterShape = z
  .object({
    algorithm: LimitAlgorithmSchema.prefault('gradient'),
    initialLimit: intAtLeast(1).default(20),
    minLimit: intAtLeast(1).default(1),
    maxLimit: intAtLeast(1).default(200),
    windowMs: positiveMs.default(100),
    maxWindowMs: positiveMs.default(1_000),
    minSamples: intAtLeast(1).default(10),
    isOverload: fnSchema<(error: unknown) => boolean>().optional(),
    name: nameSchema.default('adaptiveLimiter'),
    clock: clockSchema.optional(),
  })
  .strict();

/** Runs a cross-field rule only on fields that passed their own checks, so one mistake is not reported twice. */
const onceValid = { when: (payload: z.core.ParsePayload): boolean => payload.issues.length === 0 };

/** The cross-field rules of {@link AdaptiveLimiterShape}: the limits are ordered, the window bounds too. */
export function checkLimits(
  o: { initialLimit: number; minLimit: number; maxLimit: number; windowMs: number; maxWindowMs: number },
  ctx: z.RefinementCtx,
): void {
  if (o.minLimit > o.maxLimit) ctx.addIssue({ code: 'custom', path: ['minLimit'], message: `must be <= maxLimit (${o.maxLimit})` });
  else if (o.initialLimit < o.minLimit || o.initialLimit > o.maxLimit) {
    ctx.addIssue({ code: 'custom', path: ['initialLimit'], message: `must be between minLimit (${o.minLimit}) and maxLimit (${o.maxLimit})` });
  }
  if (o.windowMs > o.maxWindowMs) ctx.addIssue({ code: 'custom', path: ['windowMs'], message: `must be <= maxWindowMs (${o.maxWindowMs})` });
}

/** The zod schema of {@link AdaptiveLimiterOptions}. */
export const AdaptiveLimiterOptionsSchema = AdaptiveLimiterShape.superRefine(checkLimits, onceValid);

/** {@link AdaptiveLimiterOptions} with defaults applied. */
export type ResolvedAdaptiveLimiterOptions = z.output<typeof AdaptiveLimiterOptionsSchema>;
