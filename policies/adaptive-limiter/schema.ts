import { z } from 'zod';
import { clockSchema, fnSchema, intAtLeast, nameSchema, onceValid, partitionsSchema, positiveMs, ratio, reserveSchema } from '../../lib/schemas.js';
import { limitProblems } from './options.js';

const finiteAtLeast = (min: number) =>
  z.number({ message: `expected a finite number >= ${min}` }).min(min, { message: `expected a finite number >= ${min}` });

/** The zod schema of `GradientOptions`. */
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

/** The zod schema of `AimdOptions`. */
export const AimdOptionsSchema = z
  .object({
    kind: z.literal('aimd'),
    backoffRatio: ratio.refine((v) => v >= 0.5 && v < 1, { message: 'expected a number in [0.5, 1)' }).default(0.9),
    increase: z.number({ message: 'expected a finite number > 0' }).positive({ message: 'expected a finite number > 0' }).default(1),
    slowMs: positiveMs.optional(),
  })
  .strict();

/** The zod schema of `VegasOptions`. */
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

/** The data part of `AdaptiveLimiterOptions`, shared with the config entry. */
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
    /** Shares of the limit kept from default and sheddable calls. @defaultValue `{ default: 0, sheddable: 0.1 }` */
    reserve: reserveSchema.prefault({}),
    /** Shares of the limit guaranteed to classes of calls, by `ctx.meta[partitionBy]`; they borrow idle slots. @defaultValue none */
    partitions: partitionsSchema.optional(),
    /** The `ctx.meta` key naming a call's partition. @defaultValue `'criticality'` */
    partitionBy: nameSchema.default('criticality'),
    name: nameSchema.default('adaptiveLimiter'),
    clock: clockSchema.optional(),
  })
  .strict();

/** The cross-field rules of `AdaptiveLimiterShape`: the limits are ordered, the window bounds too. */
export function checkLimits(
  o: { initialLimit: number; minLimit: number; maxLimit: number; windowMs: number; maxWindowMs: number },
  ctx: z.RefinementCtx,
): void {
  for (const p of limitProblems(o)) ctx.addIssue({ code: 'custom', path: [p.key], message: p.message });
}

/** The zod schema of `AdaptiveLimiterOptions`, for `fromConfig` and the JSON Schema. */
export const AdaptiveLimiterOptionsSchema = AdaptiveLimiterShape.superRefine(checkLimits, onceValid);
