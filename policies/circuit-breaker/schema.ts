import { z } from 'zod';
import { checkBuckets, checkSnapshotGrid, finite, handleResultSchema, handleSchema, intSchema, ratioSchema, windowSnapshotSchema } from '../breaker/schema.js';
import { countSnapshotProblems, countWindowProblems, isOpenBackoff, OPEN_MS, type CircuitBreakerStats, type OpenBackoff, type OpenMsFunction } from './options.js';
import { clockSchema, fnSchema, nameSchema, nonNegativeMs, onceValid, positiveMs, randomSchema } from '../../lib/schemas.js';

const OUTCOME = 'expected an integer in [0, 3]';

/** The zod schema of `CountWindowSnapshot`: a count window's size and outcomes, oldest first. */
export const CountWindowSnapshotSchema = z
  .object({
    /** How many of the last calls the window holds. */
    size: intSchema(1),
    /** The outcomes held, oldest first: 0 a success, 1 a failure, 2 a slow success, 3 a slow failure. */
    outcomes: z.array(z.number({ message: OUTCOME }).int({ message: OUTCOME }).min(0, { message: OUTCOME }).max(3, { message: OUTCOME })),
  })
  .strict()
  .superRefine((c, ctx) => {
    for (const p of countSnapshotProblems(c)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.message });
  });

/** The zod schema of `CircuitBreakerSnapshot`. */
export const CircuitBreakerSnapshotSchema = z
  .object({
    /** Which family made it. */
    kind: z.literal('circuit'),
    state: z.enum(['closed', 'open', 'half-open'], { message: "expected 'closed', 'open' or 'half-open'" }),
    /** Forced open by `isolate()`; a restored breaker stays open until `reset()`. */
    isolated: z.boolean({ message: 'expected a boolean' }),
    /** Clock time from which an open breaker admits a probe; `null` only when isolated. */
    retryAt: z.number({ message: 'expected a finite clock time or null' }).nullable(),
    /** When the current half-open wait began. */
    halfOpenSince: z.number({ message: 'expected a finite clock time' }),
    probeSuccesses: intSchema(0),
    consecutiveFailures: intSchema(0),
    consecutiveSuccesses: intSchema(0),
    /** Outcomes of the last (up to 3) probes, newest in bit 0 (dynamicThreshold). */
    probeBits: intSchema(0).max(7, { message: 'expected an integer in [0, 7]' }),
    probeCount: intSchema(0).max(3, { message: 'expected an integer in [0, 3]' }),
    /** The statistics window. */
    window: windowSnapshotSchema,
    /** Openings in a row since the breaker last closed; left out, 0. */
    openings: intSchema(0).optional(),
    /** The count window's outcomes (`window: { type: 'count' }` only). */
    calls: CountWindowSnapshotSchema.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.retryAt === null && !s.isolated) ctx.addIssue({ code: 'custom', path: ['retryAt'], message: 'may be null only when isolated' });
  });

const common = {
  /**
   * Calls the window must hold before the strategy is evaluated (Sentinel `MinRequestAmount`); not used by `consecutiveFailures`.
   * @defaultValue 20
   */
  minRequests: intSchema(0).default(20),
  /**
   * Length of the statistics window (Sentinel `StatIntervalMs`).
   * @defaultValue 10_000
   */
  windowMs: positiveMs.default(10_000),
  /**
   * Buckets in the window (Sentinel `StatSlidingWindowBucketCount`); must divide `windowMs`.
   * @defaultValue 10
   */
  buckets: intSchema(1).default(10),
  /**
   * The last `size` calls instead of the last `windowMs` (resilience4j `COUNT_BASED`); `minRequests` is cut to `size`.
   * @defaultValue the time window of `windowMs` in `buckets`
   */
  window: z
    .object({
      /** A window of the last calls, not of the last milliseconds. */
      type: z.literal('count'),
      /** How many of the last calls it holds (resilience4j `slidingWindowSize`). */
      size: intSchema(1),
    })
    .strict()
    .optional(),
  /**
   * How long the breaker stays open before a probe: ms, or a backoff or a function `(openings, stats) => ms` for a
   * period that grows with each opening in a row (resilience4j `waitIntervalFunctionInOpenState`).
   * @defaultValue 5_000
   */
  openMs: z.union([z.custom<OpenBackoff | OpenMsFunction>((v) => typeof v === 'function' || isOpenBackoff(v), { message: OPEN_MS }), positiveMs]).default(5_000),
  /** The longest open period a growing `openMs` may give. @defaultValue the backoff's `max` when it has one, else no cap */
  maxOpenMs: positiveMs.optional(),
  /** Random source of a backoff's jitter (`openMs`). @defaultValue `Math.random` */
  random: randomSchema.optional(),
  /**
   * Probes in flight at once in half-open, and successes needed to close (Sentinel `ProbeNum`, resilience4j `permittedNumberOfCallsInHalfOpenState`).
   * @defaultValue 1
   */
  probes: intSchema(1).default(1),
  /**
   * Longest half-open may last before the next allow() or settle reopens it (resilience4j `maxWaitDurationInHalfOpenState`).
   * @defaultValue 60_000
   */
  maxHalfOpenMs: positiveMs.default(60_000),
  /** Which thrown values count as failures; a throw inside it counts as a failure. @defaultValue every thrown value */
  handle: handleSchema.optional(),
  /** Which results count as failures. @defaultValue none */
  handleResult: handleResultSchema.optional(),
  /**
   * State to start from: a `CircuitBreakerPolicy.snapshot` (validated; never changed). Its window must have this breaker's grid.
   * @defaultValue a fresh, closed breaker
   */
  initialState: CircuitBreakerSnapshotSchema.optional(),
  /** @defaultValue `'circuitBreaker'` */
  name: nameSchema.default('circuitBreaker'),
  /** @defaultValue the system clock */
  clock: clockSchema.optional(),
};

/** Trips when slow calls / calls `>= threshold` (Sentinel `SlowRequestRatio`). */
const SlowCallRatio = z
  .object({
    strategy: z.literal('slowCallRatio'),
    /** Share of slow calls that trips the breaker, in [0, 1]. @defaultValue 0.5 */
    threshold: ratioSchema.default(0.5),
    /** A call is slow when it takes strictly longer (Sentinel `MaxAllowedRtMs`). @defaultValue 1_000 */
    slowCallMs: nonNegativeMs.default(1_000),
    ...common,
  })
  .strict();

/** Trips when failures / calls `>= threshold` (Sentinel `ErrorRatio`). */
const ErrorRatio = z
  .object({
    strategy: z.literal('errorRatio'),
    /** Share of failures that trips the breaker, in [0, 1]. @defaultValue 0.5 */
    threshold: ratioSchema.default(0.5),
    ...common,
  })
  .strict();

/** Trips when failures in the window `>= threshold` (Sentinel `ErrorCount`). */
const ErrorCount = z
  .object({
    strategy: z.literal('errorCount'),
    /** Failures in the window that trip the breaker. @defaultValue 5 */
    threshold: intSchema(0).default(5),
    ...common,
  })
  .strict();

/** Trips on the `threshold`-th failure in a row (gobreaker `ConsecutiveFailures`). */
const ConsecutiveFailures = z
  .object({
    strategy: z.literal('consecutiveFailures'),
    /** Failures in a row that trip the breaker. @defaultValue 5 */
    threshold: intSchema(0).default(5),
    ...common,
  })
  .strict();

const weight = (d: number) =>
  finite('expected a finite number >= 0').min(0, { message: 'expected a finite number >= 0' })
    .default(d);

/** Trips when a risk score of load, error rate and probe distrust reaches `threshold` (docs/breakers.md). */
const DynamicThreshold = z
  .object({
    strategy: z.literal('dynamicThreshold'),
    /** The risk score, in [0, 1], at which the breaker trips. @defaultValue 0.5 */
    threshold: ratioSchema.default(0.5),
    /** Weights of the threshold's three terms. @defaultValue `{ rps: 0.3, errorRate: 0.5, probe: 0.2 }` */
    weights: z
      .object({ rps: weight(0.3), errorRate: weight(0.5), probe: weight(0.2) })
      .strict()
      .default({ rps: 0.3, errorRate: 0.5, probe: 0.2 }),
    /** Calls per second at which the load term saturates (seed `BASE_RPS`). @defaultValue 100 */
    baseRps: finite('expected a finite number > 0').positive({ message: 'expected a finite number > 0' })
      .default(100),
    ...common,
  })
  .strict();

/** Trips when `readyToTrip(stats)` returns true (gobreaker `ReadyToTrip`). */
const Custom = z
  .object({
    strategy: z.literal('custom'),
    /** Called after each counted completion in closed state (once `minRequests` is met); true trips. */
    readyToTrip: fnSchema<(stats: CircuitBreakerStats) => boolean>(),
    ...common,
  })
  .strict();

/** The options of each strategy, before the cross-field rule (buckets divide windowMs). */
export const CircuitBreakerVariants = { SlowCallRatio, ErrorRatio, ErrorCount, ConsecutiveFailures, DynamicThreshold, Custom } as const;

/** The zod schema of the options of `circuitBreaker` (a discriminated union on `strategy`), for `fromConfig` and the JSON Schema. */
export const CircuitBreakerOptionsSchema = z
  .discriminatedUnion('strategy', [SlowCallRatio, ErrorRatio, ErrorCount, ConsecutiveFailures, DynamicThreshold, Custom])
  .superRefine((o, ctx) => {
    checkBuckets(o, ctx);
    checkSnapshotGrid(o, ctx);
    checkCountWindow(o, ctx);
  }, onceValid);

/** Adds an issue for each broken rule of the window choice (`countWindowProblems`). */
export function checkCountWindow(o: Parameters<typeof countWindowProblems>[0], ctx: z.RefinementCtx): void {
  for (const p of countWindowProblems(o)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.message });
}
