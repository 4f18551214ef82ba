import type { Clock } from '../../lib/clock.js';
import { above, array, atLeast, atMost, bool, clock, custom, defineRule, discriminated, Findings, fn, intAtLeast, integer, name, nonNegativeMs, number, numberAtLeast, object, oneOf, optional, type PathPart, positiveMs, random, refined, type Rule, type RuleOutput, whenValid, withDefault } from '../../lib/options.js';
import type { WindowSnapshot } from '../../lib/window.js';
import { breakerStateRule, bucketProblems, clockTime, clockTimeOrNull, handleResultRule, handleRule, ratioRule, snapshotGridProblems, windowSnapshotRule, type Problem } from '../breaker/options.js';
import type { CountWindowSnapshot } from './count-window.js';

/** What {@link CircuitBreakerPolicy.stats} reports, and what a `custom` trip rule's `readyToTrip` sees. */
export interface CircuitBreakerStats {
  /** Calls completed in the window (closed state only; shed calls are not counted). */
  readonly total: number;
  /** Of those, failures. */
  readonly failures: number;
  /** Of those, slow calls (`slowCallRatio` only: duration > `slowCallMs`). */
  readonly slow: number;
  /** Failures in a row, since the last success or state change. */
  readonly consecutiveFailures: number;
  /** Successes in a row, since the last failure or state change. */
  readonly consecutiveSuccesses: number;
}

/**
 * What {@link CircuitBreakerPolicy.snapshot} returns and `initialState` takes:
 * plain JSON (clock times are the clock's epoch ms). Calls in flight are not
 * part of it: their permits belong to the breaker that admitted them.
 */
export interface CircuitBreakerSnapshot {
  /** Which family made it. */
  kind: 'circuit';
  /** The state the breaker was in. */
  state: 'closed' | 'open' | 'half-open';
  /** Forced open by `isolate()`; a restored breaker stays open until `reset()`. */
  isolated: boolean;
  /** Clock time from which an open breaker admits a probe; `null` only when isolated. */
  retryAt: number | null;
  /** When the current half-open wait began. */
  halfOpenSince: number;
  /** Probes that succeeded in the current half-open period. */
  probeSuccesses: number;
  /** Failures in a row. */
  consecutiveFailures: number;
  /** Successes in a row. */
  consecutiveSuccesses: number;
  /** Outcomes of the last (up to 3) probes, newest in bit 0 (dynamicThreshold). */
  probeBits: number;
  /** How many of `probeBits` are set by probes. */
  probeCount: number;
  /** The statistics window (a count-window breaker keeps its calls in `calls`; this one stays empty). */
  window: WindowSnapshot;
  /** Openings in a row since the breaker last closed (what a growing `openMs` is given); left out, 0. */
  openings?: number | undefined;
  /** The count window's outcomes (`window: { type: 'count' }` only). */
  calls?: CountWindowSnapshot | undefined;
}

/** The message for a count window's snapshot holding more outcomes than its size. */
export const OUTCOMES_SIZE = 'expected at most size outcomes';

/** The internal consistency of a {@link CountWindowSnapshot}: no more outcomes than its size. */
export function countSnapshotProblems(c: { size: number; outcomes: readonly number[] }): Problem[] {
  return c.outcomes.length > c.size ? [{ path: ['outcomes'], message: OUTCOMES_SIZE }] : [];
}

const OUTCOME = 'expected an integer in [0, 3]';
/** The rules of {@link CountWindowSnapshot}. */
export const countWindowSnapshotRule = /* @__PURE__ */ defineRule(() => object(
  {
    size: intAtLeast(1),
    outcomes: array(integer(OUTCOME, atLeast(0, OUTCOME), atMost(3, OUTCOME))),
  },
  (c, add) => {
    for (const p of countSnapshotProblems(c)) add(p.message, p.path);
  },
));

/** The rules of {@link CircuitBreakerSnapshot}. */
export const circuitBreakerSnapshot = /* @__PURE__ */ defineRule(() => object(
  {
    kind: oneOf(['circuit']),
    state: breakerStateRule,
    isolated: bool('expected a boolean'),
    retryAt: clockTimeOrNull,
    halfOpenSince: clockTime,
    probeSuccesses: intAtLeast(0),
    consecutiveFailures: intAtLeast(0),
    consecutiveSuccesses: intAtLeast(0),
    probeBits: integer('expected an integer >= 0', atLeast(0, 'expected an integer >= 0'), atMost(7, 'expected an integer in [0, 7]')),
    probeCount: integer('expected an integer >= 0', atLeast(0, 'expected an integer >= 0'), atMost(3, 'expected an integer in [0, 3]')),
    window: windowSnapshotRule,
    openings: optional(intAtLeast(0)),
    calls: optional(countWindowSnapshotRule),
  },
  (s, add) => {
    if (s.retryAt === null && !s.isolated) add('may be null only when isolated', ['retryAt']);
  },
));

/** The options every {@link circuitBreaker} trip rule shares. */
export interface CircuitBreakerCommonOptions {
  /**
   * Calls the window must hold before the trip rule is evaluated (Sentinel `MinRequestAmount`); not used by `consecutiveFailures`.
   * @defaultValue 20
   */
  minRequests?: number | undefined;
  /**
   * Length of the statistics window (Sentinel `StatIntervalMs`).
   * @defaultValue 10_000
   */
  windowMs?: number | undefined;
  /**
   * Buckets in the window (Sentinel `StatSlidingWindowBucketCount`); must divide `windowMs`.
   * @defaultValue 10
   */
  buckets?: number | undefined;
  /**
   * The last `size` calls instead of the last `windowMs` (resilience4j's `COUNT_BASED` sliding window, cockatiel's
   * `CountBreaker`): a ring of one byte per call, O(1) a call. `minRequests` still gates the trip rules, cut to
   * `size` as resilience4j does; `windowMs` and `buckets` are not used. Not with `dynamicThreshold`, whose load term
   * is calls per second.
   * @defaultValue the time window of `windowMs` in `buckets`
   * @example
   * ```ts
   * circuitBreaker({ trip: 'errorRatio', window: { type: 'count', size: 100 }, minRequests: 20 });
   * ```
   */
  window?: CountWindowOption | undefined;
  /**
   * How long the breaker stays open before a probe (Sentinel `RetryTimeoutMs`, gobreaker `Timeout`): a number of
   * ms, or a period that grows with each opening in a row (resilience4j's `waitIntervalFunctionInOpenState`, Polly's
   * `BreakDurationGenerator`): a backoff of `retry` (`exponential`, `linear`, `constant`), given the opening number
   * (1 for the first opening after closed, 2 when its probe fails, ...), or a function `(openings, stats) => ms`. It
   * goes back to the first period once the breaker closes. A result that is not a finite number >= 0 (or a throw)
   * keeps the previous period (5 000 ms for the first); every result is cut to `maxOpenMs`.
   * @defaultValue 5_000
   * @example
   * ```ts
   * circuitBreaker({ trip: 'errorRatio', openMs: exponential({ initial: 1_000, max: 60_000, jitter: 'none' }) });
   * ```
   */
  openMs?: number | OpenBackoff | OpenMsFunction | undefined;
  /**
   * The longest open period a growing `openMs` may give.
   * @defaultValue the backoff's `max` when it has one, else no cap
   */
  maxOpenMs?: number | undefined;
  /**
   * Random source of a backoff's jitter (`openMs`).
   * @defaultValue `Math.random`
   */
  random?: (() => number) | undefined;
  /**
   * Probes in flight at once in half-open, and successes needed to close (Sentinel `ProbeNum`, resilience4j `permittedNumberOfCallsInHalfOpenState`).
   * @defaultValue 1
   */
  probes?: number | undefined;
  /**
   * Longest half-open may last before the next allow() or settle reopens it (resilience4j `maxWaitDurationInHalfOpenState`).
   * @defaultValue 60_000
   */
  maxHalfOpenMs?: number | undefined;
  /**
   * Which thrown values count as failures; a throw inside it counts as a failure.
   * @defaultValue every thrown value
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which results count as failures.
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * State to start from: a {@link CircuitBreakerPolicy.snapshot} (validated; never changed). Its window must have this breaker's grid.
   * @defaultValue a fresh, closed breaker
   */
  initialState?: CircuitBreakerSnapshot | undefined;
  /**
   * The breaker's name in events, errors and metrics.
   * @defaultValue `'circuitBreaker'`
   */
  name?: string | undefined;
  /**
   * The clock the breaker runs on.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The count-based window of {@link CircuitBreakerCommonOptions.window}: the last `size` calls. */
export interface CountWindowOption {
  /** A window of the last calls, not of the last milliseconds. */
  type: 'count';
  /** How many of the last calls it holds (resilience4j `slidingWindowSize`). */
  size: number;
}

/**
 * A backoff as `retry` takes one (`exponential()`, `linear()`, `constant()`): `delay` is called with the opening
 * number in place of the retry number, no error, the previous open period and the breaker's `random`.
 */
export interface OpenBackoff {
  /** Milliseconds the breaker stays open at opening number `attempt` (1 for the first). */
  delay(attempt: number, error: unknown, previous: number, random: () => number): number;
  /** The longest period it ever gives, when it has such a bound: the default of `maxOpenMs`. */
  readonly max?: number;
}

/** A growing open period: `openings` is 1 for the first opening after closed; `stats` are the breaker's figures then. */
export type OpenMsFunction = (openings: number, stats: CircuitBreakerStats) => number;

/** True for an {@link OpenBackoff} (an object with a `delay` method). */
export function isOpenBackoff(value: unknown): value is OpenBackoff {
  return typeof value === 'object' && value !== null && typeof (value as OpenBackoff).delay === 'function';
}

/** The message of a bad `openMs`. */
export const OPEN_MS = 'expected a number of milliseconds > 0, a backoff (constant, linear, exponential) or a function (openings, stats) => ms';

const growing = /* @__PURE__ */ defineRule(() => custom<OpenBackoff | OpenMsFunction>((v) => typeof v === 'function' || isOpenBackoff(v), OPEN_MS));
/** `openMs`: a finite number of milliseconds > 0 (its range in the words of `positiveMs`, as zod's union reports it), a backoff or a function. */
const openMsRule: Rule<number | OpenBackoff | OpenMsFunction> = (value, path, found) =>
  typeof value === 'number' && Number.isFinite(value) ? positiveMs(value, path, found) : growing(value, path, found);

/** The message when a count window meets `dynamicThreshold`. */
export const COUNT_DYNAMIC = 'expected the time window with dynamicThreshold (its load term is calls per second over windowMs)';

/**
 * The cross-field rules of the window choice: `dynamicThreshold` needs the time window, and a snapshot in
 * `initialState` must hold the calls of a count window exactly when the options ask for one, of the same size.
 */
export function countWindowProblems(o: {
  strategy: string;
  window?: { size: number } | undefined;
  initialState?: { calls?: { size: number } | undefined } | undefined;
}): Problem[] {
  const count = o.window;
  if (count !== undefined && o.strategy === 'dynamicThreshold') return [{ path: ['window'], message: COUNT_DYNAMIC }];
  const s = o.initialState;
  if (s === undefined) return [];
  if (count === undefined) return s.calls === undefined ? [] : [{ path: ['initialState', 'calls'], message: 'expected no calls: the options ask for the time window' }];
  if (s.calls === undefined) return [{ path: ['initialState', 'calls'], message: "expected the count window's calls (window.type is 'count')" }];
  return s.calls.size === count.size ? [] : [{ path: ['initialState', 'calls', 'size'], message: `must equal window.size (${count.size})` }];
}

/** Trips when slow calls / calls `>= threshold` (Sentinel `SlowRequestRatio`). */
export interface SlowCallRatioOptions extends CircuitBreakerCommonOptions {
  /** The trip rule: slow calls / calls `>= threshold`. */
  trip: 'slowCallRatio';
  /**
   * Share of slow calls that trips the breaker, in [0, 1].
   * @defaultValue 0.5
   */
  threshold?: number | undefined;
  /**
   * A call is slow when it takes strictly longer (Sentinel `MaxAllowedRtMs`).
   * @defaultValue 1_000
   */
  slowCallMs?: number | undefined;
}

/** Trips when failures / calls `>= threshold` (Sentinel `ErrorRatio`). */
export interface ErrorRatioOptions extends CircuitBreakerCommonOptions {
  /** The trip rule: failures / calls `>= threshold`. */
  trip: 'errorRatio';
  /**
   * Share of failures that trips the breaker, in [0, 1].
   * @defaultValue 0.5
   */
  threshold?: number | undefined;
}

/** Trips when failures in the window `>= threshold` (Sentinel `ErrorCount`). */
export interface ErrorCountOptions extends CircuitBreakerCommonOptions {
  /** The trip rule: failures in the window `>= threshold`. */
  trip: 'errorCount';
  /**
   * Failures in the window that trip the breaker.
   * @defaultValue 5
   */
  threshold?: number | undefined;
}

/** Trips on the `threshold`-th failure in a row (gobreaker `ConsecutiveFailures`). */
export interface ConsecutiveFailuresOptions extends CircuitBreakerCommonOptions {
  /** The trip rule: the `threshold`-th failure in a row. */
  trip: 'consecutiveFailures';
  /**
   * Failures in a row that trip the breaker.
   * @defaultValue 5
   */
  threshold?: number | undefined;
}

/** Trips when a risk score of load, error rate and probe distrust reaches `threshold` (docs/breakers.md). */
export interface DynamicThresholdOptions extends CircuitBreakerCommonOptions {
  /** The trip rule: a risk score of load, error rate and probe distrust reaching `threshold`. */
  trip: 'dynamicThreshold';
  /**
   * The risk score, in [0, 1], at which the breaker trips.
   * @defaultValue 0.5
   */
  threshold?: number | undefined;
  /**
   * Weights of the threshold's three terms.
   * @defaultValue `{ rps: 0.3, errorRate: 0.5, probe: 0.2 }`
   */
  weights?: { rps?: number | undefined; errorRate?: number | undefined; probe?: number | undefined } | undefined;
  /**
   * Calls per second at which the load term saturates.
   * @defaultValue 100
   */
  baseRps?: number | undefined;
}

/** Trips when `readyToTrip(stats)` returns true (gobreaker `ReadyToTrip`). */
export interface CustomStrategyOptions extends CircuitBreakerCommonOptions {
  /** The trip rule: `readyToTrip(stats)`. */
  trip: 'custom';
  /** Called after each counted completion in closed state (once `minRequests` is met); true trips. */
  readyToTrip: (stats: CircuitBreakerStats) => boolean;
}

/** The options of each trip rule, spelled with `trip`. */
export type CircuitBreakerTripOptions =
  | SlowCallRatioOptions
  | ErrorRatioOptions
  | ErrorCountOptions
  | ConsecutiveFailuresOptions
  | DynamicThresholdOptions
  | CustomStrategyOptions;

/**
 * The options of each trip rule spelled with `strategy`, the deprecated
 * name of `trip`: what config files (`fromConfig`, `PipelineConfigSchema`)
 * still take.
 * @example
 * ```ts
 * const data: CircuitBreakerStrategyOptions = { strategy: 'errorRatio', threshold: 0.5 };
 * ```
 */
export type CircuitBreakerStrategyOptions = {
  [T in CircuitBreakerStrategy]: {
    [K in keyof (Omit<Extract<CircuitBreakerTripOptions, { trip: T }>, 'trip'> & CircuitBreakerStrategyOption<T>)]: (Omit<Extract<CircuitBreakerTripOptions, { trip: T }>, 'trip'> &
      CircuitBreakerStrategyOption<T>)[K];
  };
}[CircuitBreakerStrategy];

/** `strategy`, the deprecated name of {@link circuitBreaker}'s `trip` option. */
export interface CircuitBreakerStrategyOption<T extends CircuitBreakerStrategy> {
  /**
   * The trip rule.
   * @deprecated use `trip`, which takes the same values
   */
  strategy: T;
}

/**
 * Options of {@link circuitBreaker}, one shape per trip rule, named by
 * `trip` (or by `strategy`, its deprecated name; not both).
 * @example
 * ```ts
 * circuitBreaker({ trip: 'errorRatio', threshold: 0.5, minRequests: 20, openMs: 5_000 });
 * ```
 */
export type CircuitBreakerOptions = (CircuitBreakerTripOptions & { strategy?: never }) | (CircuitBreakerStrategyOptions & { trip?: never });

const common = /* @__PURE__ */ defineRule(() => ({
  minRequests: withDefault(intAtLeast(0), 20),
  windowMs: withDefault(positiveMs, 10_000),
  buckets: withDefault(intAtLeast(1), 10),
  window: optional(object({ type: oneOf(['count']), size: intAtLeast(1) })),
  openMs: withDefault(openMsRule, 5_000),
  maxOpenMs: optional(positiveMs),
  random: optional(random),
  probes: withDefault(intAtLeast(1), 1),
  maxHalfOpenMs: withDefault(positiveMs, 60_000),
  handle: optional(handleRule),
  handleResult: optional(handleResultRule),
  initialState: optional(circuitBreakerSnapshot),
  name: withDefault(name, 'circuitBreaker'),
  clock: optional(clock),
}));

const weight = (d: number) => withDefault(numberAtLeast(0), d);

/** The rules of {@link CircuitBreakerStrategyOptions}: `CircuitBreakerOptionsSchema` in `breakwater/config` says the same. */
const strategyOptions = /* @__PURE__ */ defineRule(() => refined(
  discriminated('strategy', {
    slowCallRatio: object({ strategy: oneOf(['slowCallRatio']), threshold: withDefault(ratioRule, 0.5), slowCallMs: withDefault(nonNegativeMs, 1_000), ...common }),
    errorRatio: object({ strategy: oneOf(['errorRatio']), threshold: withDefault(ratioRule, 0.5), ...common }),
    errorCount: object({ strategy: oneOf(['errorCount']), threshold: withDefault(intAtLeast(0), 5), ...common }),
    consecutiveFailures: object({ strategy: oneOf(['consecutiveFailures']), threshold: withDefault(intAtLeast(0), 5), ...common }),
    dynamicThreshold: object({
      strategy: oneOf(['dynamicThreshold']),
      threshold: withDefault(ratioRule, 0.5),
      weights: withDefault(object({ rps: weight(0.3), errorRate: weight(0.5), probe: weight(0.2) }), { rps: 0.3, errorRate: 0.5, probe: 0.2 }),
      baseRps: withDefault(number('expected a finite number > 0', above(0, 'expected a finite number > 0')), 100),
      ...common,
    }),
    custom: object({ strategy: oneOf(['custom']), readyToTrip: fn<(stats: CircuitBreakerStats) => boolean>(), ...common }),
  }),
  whenValid((o, add) => {
    for (const p of [...bucketProblems(o), ...snapshotGridProblems(o), ...countWindowProblems(o)]) add(p.message, p.path);
  }),
));

/** {@link CircuitBreakerOptions} with defaults applied, the trip rule under `strategy` (as config data has it). */
export type ResolvedCircuitBreakerOptions = RuleOutput<typeof strategyOptions>;

/**
 * The rules of {@link CircuitBreakerOptions}: the trip rule under `trip`,
 * or under `strategy` (its deprecated name), not both. A caller who wrote
 * `trip` reads `trip` in every message; with neither, messages say
 * `strategy`, as `CircuitBreakerOptionsSchema` does for config data.
 */
export const circuitBreakerOptions: Rule<ResolvedCircuitBreakerOptions> = (value, path, found) => {
  if (typeof value !== 'object' || value === null) return strategyOptions(value, path, found);
  if (!hasOption(value, 'trip')) {
    if (!('trip' in value)) return strategyOptions(value, path, found);
    // `trip: undefined` gives nothing, as an optional option set to undefined does
    const { trip: _, ...rest } = value as { trip: unknown };
    return strategyOptions(rest, path, found);
  }
  if (hasOption(value, 'strategy')) {
    found.add([...path, 'strategy'], BOTH_SPELLINGS, true);
    return value as ResolvedCircuitBreakerOptions;
  }
  const { trip, ...rest } = value as { trip: unknown };
  const own = new Findings();
  const out = strategyOptions({ ...rest, strategy: trip }, path, own);
  for (const f of own.list) found.add(tripSpelled(f.path, path.length), f.message, f.fatal);
  return out;
};

/** The message for options that give both `trip` and `strategy`. */
export const BOTH_SPELLINGS = 'expected trip or strategy, not both (strategy is the deprecated name of trip)';

/** True when `options` gives `key` (a key set to `undefined` gives nothing). */
export function hasOption(options: object, key: string): boolean {
  return (options as Record<string, unknown>)[key] !== undefined;
}

/** `path` with the option at `depth` called `trip` where the rules said `strategy`. */
function tripSpelled(path: readonly PathPart[], depth: number): PathPart[] {
  return path.map((part, i) => (i === depth && part === 'strategy' ? 'trip' : part));
}

/** The trip rules' names. */
export type CircuitBreakerStrategy = CircuitBreakerTripOptions['trip'];
