import { z } from 'zod';
import { clockSchema, intAtLeast, nameSchema, positiveMs } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { DecisionTree } from './decision-tree.js';
import { isSignalSource, type SignalSource } from '../../lib/signals.js';

/** What a degrade handler is told: the action the decision named and the signal values it saw. */
export interface DegradeInfo {
  /** The decision tree's action (`'shedNonCore'`, `'serveFromCache'`, `'limitAndSample'`) or `'custom'` for a predicate. */
  readonly action: string;
  /** Every signal's value at the decision (`qps`, `cpu`, `health` and any of yours). */
  readonly signals: Readonly<Record<string, number>>;
}

/** Answers a call that `degrade` decided not to make. */
export type DegradeHandler<F> = (info: DegradeInfo, ctx: ExecutionContext) => F | PromiseLike<F>;

/** A predicate over the current signal values: `true` degrades. */
export type DegradePredicate = (signals: Readonly<Record<string, number>>) => boolean;

/** The zod schema of {@link degrade}'s options. */
export const DegradeOptionsSchema = z
  .object({
    /** The decision: `decisionTree(...)` or a predicate over the signals. */
    when: z.custom<DecisionTree | DegradePredicate>((v) => v instanceof DecisionTree || typeof v === 'function', {
      message: 'expected decisionTree(...) or a predicate (signals) => boolean',
    }),
    /**
     * Signal sources by name. `qps` defaults to this policy's own request rate, `cpu` to `processCpu()`,
     * `health` to 1; add any others a predicate reads.
     * @defaultValue `{}`
     */
    signals: z
      .record(z.string(), z.custom<SignalSource>(isSignalSource, { message: 'expected a number, a function, { value() } or an Observable<number>' }))
      .default({}),
    /** Answers degraded calls. */
    to: z.custom<DegradeHandler<unknown>>((v) => typeof v === 'function', { message: 'expected a handler function (info, ctx) => value' }),
    /** Window of the own request-rate signal. @defaultValue 10_000 */
    rateWindowMs: positiveMs.default(10_000),
    /** @defaultValue `'degrade'` */
    name: nameSchema.default('degrade'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

/**
 * Options of {@link degrade}; `to`'s answer type becomes the policy's `T`.
 * @example
 * ```ts
 * degrade({ when: decisionTree(), signals: { health: healthOf(breaker, { clock }) }, to: () => CACHED });
 * ```
 */
export type DegradeOptions<F> = Omit<z.input<typeof DegradeOptionsSchema>, 'to'> & { to: DegradeHandler<F> };
