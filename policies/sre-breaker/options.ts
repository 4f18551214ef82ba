import type { Clock } from '../../lib/clock.js';
import { bool, clock, defineRule, name, nonNegativeMs, numberAtLeast, object, oneOf, optional, positiveMs, random, type RuleOutput, whenValid, withDefault } from '../../lib/options.js';
import type { WindowSnapshot } from '../../lib/window.js';
import { bucketProblems, clockTimeOrNull, finite, handleResultRule, handleRule, intRule, snapshotGridProblems, windowSnapshotRule, type Problem } from '../breaker/options.js';

/**
 * What {@link SreBreakerPolicy.snapshot} returns and `initialState` takes: plain
 * JSON (clock times are the clock's epoch ms).
 */
export interface SreBreakerSnapshot {
  /** Which family made it. */
  kind: 'sre';
  /** The last decision's drop ratio was > 0. */
  open: boolean;
  /** Forced open by `isolate()`; a restored breaker stays open until `reset()`. */
  isolated: boolean;
  /** Clock time of the last call let through while shedding; `null` before any. */
  lastPass: number | null;
  /** The statistics window. */
  window: WindowSnapshot;
}

/** The rules of {@link SreBreakerSnapshot}. */
export const sreBreakerSnapshot = /* @__PURE__ */ defineRule(() => object({
  kind: oneOf(['sre']),
  open: bool('expected a boolean'),
  isolated: bool('expected a boolean'),
  lastPass: clockTimeOrNull,
  window: windowSnapshotRule,
}));

/**
 * Options of {@link sreBreaker}: all optional, go-zero's defaults (`core/breaker/googlebreaker.go`).
 * @example
 * ```ts
 * sreBreaker({ k: 2, handle: (e) => !(e instanceof NotFoundError) });
 * ```
 */
export interface SreBreakerOptions {
  /**
   * Length of the statistics window (go-zero `window`).
   * @defaultValue 10_000
   */
  windowMs?: number | undefined;
  /**
   * Buckets in the window (go-zero `buckets`); must divide `windowMs`.
   * @defaultValue 40 (250 ms each)
   */
  buckets?: number | undefined;
  /**
   * Multiplier on accepted calls (go-zero `k`, the SRE book's K): the higher, the later shedding starts.
   * @defaultValue 1.5
   */
  k?: number | undefined;
  /**
   * Floor of the weight as failing buckets pile up (go-zero `minK`); `k >= minK >= 1`.
   * @defaultValue 1.1
   */
  minK?: number | undefined;
  /**
   * Calls subtracted from the total before any shedding (go-zero `protection`): no shedding on tiny traffic.
   * @defaultValue 5
   */
  protection?: number | undefined;
  /**
   * While shedding, let one call through when none has passed for longer than this (go-zero `forcePassDuration`).
   * @defaultValue 1_000
   */
  forcePassMs?: number | undefined;
  /**
   * Which thrown values count as failures (go-zero's `acceptable` is its negation); a throw inside it counts as a failure.
   * @defaultValue every thrown value
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which results count as failures.
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * State to start from: a {@link SreBreakerPolicy.snapshot} (validated; never changed). Its window must have this breaker's grid.
   * @defaultValue a fresh, closed breaker
   */
  initialState?: SreBreakerSnapshot | undefined;
  /**
   * The breaker's name in events and metrics.
   * @defaultValue `'breaker'`
   */
  name?: string | undefined;
  /**
   * The clock of the window and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
  /**
   * Random source for the drop decision, in [0, 1).
   * @defaultValue `Math.random`
   */
  random?: (() => number) | undefined;
}

/** The cross-field problems of SRE options: buckets divide windowMs, the snapshot has the grid, k >= minK. */
export function sreProblems(o: { windowMs: number; buckets: number; k: number; minK: number; initialState?: SreBreakerSnapshot | undefined }): Problem[] {
  const out = [...bucketProblems(o), ...snapshotGridProblems(o)];
  if (o.k < o.minK) out.push({ path: ['k'], message: `must be >= minK (${o.minK})` });
  return out;
}

/** The rules of {@link SreBreakerOptions} (`SreBreakerOptionsSchema` in `breakwater/config` says the same). */
export const sreBreakerOptions = /* @__PURE__ */ defineRule(() => object(
  {
    windowMs: withDefault(positiveMs, 10_000),
    buckets: withDefault(intRule(1), 40),
    k: withDefault(finite('expected a finite number'), 1.5),
    minK: withDefault(numberAtLeast(1), 1.1),
    protection: withDefault(numberAtLeast(0), 5),
    forcePassMs: withDefault(nonNegativeMs, 1_000),
    handle: optional(handleRule),
    handleResult: optional(handleResultRule),
    initialState: optional(sreBreakerSnapshot),
    name: withDefault(name, 'breaker'),
    clock: optional(clock),
    random: optional(random),
  },
  whenValid((o, add) => {
    for (const p of sreProblems(o)) add(p.message, p.path);
  }),
));

/** {@link SreBreakerOptions} with defaults applied. */
export type ResolvedSreBreakerOptions = RuleOutput<typeof sreBreakerOptions>;
