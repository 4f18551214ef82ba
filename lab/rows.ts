import type { Observable } from 'rxjs';
import { policy } from '../api/builder.js';
import type { Clock } from '../lib/clock.js';
import type { PolicyEvent } from '../lib/events.js';
import type { ExecutionContext } from '../lib/policy.js';
import { strategies } from '../config/strategies/index.js';
import { constant } from '../policies/retry/index.js';
import type { Dependency } from './dependency.js';
import { MODEL, type ExtraMetric, type ScenarioName } from './model.js';
import { deadlineBlind, type Caller } from './naive.js';
import { TRIP_RULES, TRIP_SCENARIOS, type TripRule } from './trip-rules.js';

/** What a degraded answer (a fallback's) is: anything but a fresh answer of C. */
export const DEGRADED = Object.freeze({ from: 'fallback' });
/** The fallback handler every row with a fallback uses. */
const degraded = (): typeof DEGRADED => DEGRADED;

/** A writer row (`writeBehind`): `write(payload)` resolves `{ status: 'delivered' | 'queued' }`. */
export interface Writer {
  write(payload: unknown, options?: { key?: string; signal?: AbortSignal }): Promise<{ readonly status: string }>;
  readonly events$?: Observable<PolicyEvent>;
  /** Writes waiting to be replayed (the backlog). */
  readonly queued?: number;
}

/** The payload the lab writes through a writer: the request's own key (each write an independent record). */
export interface LabWrite {
  readonly key: string;
}

/** What B calls C through: a policy (or anything that executes like one), or a writer. */
export type Protection = Caller | Writer;

/** What the lab hands a row besides clock and random: C, and live signals of B and C for rows that read them. */
export interface LabEnv {
  readonly c: Dependency;
  /** B's load: calls in flight ÷ its limit, in [0, 1] (the "CPU" of the decision tree). */
  cpu(): number;
  /** C's health: share of attempts C answered over the last second (1 with none). */
  health(): number;
  /** Work B goes on doing after A gave up (a deadline-blind retry loop): it holds one of B's threads until it ends. */
  orphan(work: Promise<unknown>): void;
  /** Delivers one payload to C (for writers): `deliver(payload, ctx)`; C applies it under the payload's key. */
  deliver(payload: unknown, ctx: ExecutionContext): Promise<unknown>;
  /** Reads the replica of C, a secondary source (lab/dependency.ts, `REPLICA`): healthy, its data 2 s old. */
  replica(): Promise<unknown>;
}

/** Builds a row's protection for one run, on the lab's clock and seeded random source. */
export type RowFactory = (clock: Clock, random: () => number, lab: LabEnv) => Protection;

/** One row of the lab: how to build it, whether it holds a breaker (for `rtoMax`), its keys and what it records. */
export interface RowSpec {
  readonly make: RowFactory;
  readonly breaker: boolean;
  /** `ctx.key` of each call: a read of one of 1,000 items (cache keys), or one key per request (idempotency keys). */
  readonly keys: 'items' | 'requests';
  /** What the row records beyond the common figures, in every scenario. */
  readonly measures: readonly ExtraMetric[];
  /**
   * For a check row (one that checks a formula rather than a strategy's claims): the only scenarios it runs in,
   * by default and in the published runs (lab/plan.ts).
   */
  readonly checkIn?: readonly ScenarioName[];
}

const T = MODEL.attemptTimeoutMs;
/** `boundedRetry`'s total timeout in the lab: under A's 500 ms patience, so its bound is what A sees (100 ms left to answer A). */
export const BOUNDED_TOTAL_MS = 400;
const row = (make: RowFactory, breaker = false, keys: RowSpec['keys'] = 'items', measures: readonly ExtraMetric[] = []): RowSpec => ({
  make,
  breaker,
  keys,
  measures,
});

/** A check row of the trip rules: B's attempt timeout, then a `circuitBreaker` with `rule` (lab/trip-rules.ts). */
const tripRow = (rule: TripRule): RowSpec => {
  const { trip, threshold, baseRps, windowMs, buckets, minRequests } = rule;
  const window = { threshold, windowMs, buckets, minRequests };
  return {
    ...row((clock, random) =>
      policy({ clock, random })
        .timeout(T)
        .circuitBreaker(trip === 'dynamicThreshold' ? { trip, baseRps, ...window } : { trip, ...window }),
    true),
    checkIn: TRIP_SCENARIOS,
  };
};

/**
 * Every row of the lab, in table order: name → factory; adding a row is one
 * line. `baseline` has no protection at all (B waits as long as A lets it);
 * `naiveRetry` is the common anti-pattern: 3 tries of 300 ms, retried at
 * once (no backoff, no jitter), blind to A's deadline (it goes on retrying
 * after A gave up, holding one of B's threads), no budget, no breaker. `boundedRetry` is its remedy: the
 * same tries, with jittered exponential backoff, A's deadline propagated, and
 * its total timeout under A's patience ({@link BOUNDED_TOTAL_MS}). Then the strategies (`writeBehind` writes one independent record per request), with their own defaults except the time B
 * gives an attempt (300 ms; `slowCallShield` counts calls over 200 ms slow),
 * and, for `adaptiveDegrade`, thresholds and signals scaled to the model
 * (high load 150/s, medium 100/s; B's occupancy as CPU; C's recent success as health), and, for
 * `fallbackChain`, a secondary source: C's read replica, between the last good value and the default.
 * `idempotentRetry` and `writeBehind` record the duplicate side effects at C, `writeBehind` its backlog and
 * drain, `fallbackChain` where its degraded answers came from and how old they were. Last, the check rows of
 * the dynamic threshold (`dynamicBreaker`, and `ratioBreaker` with a fixed error ratio beside it), which run
 * only where their check needs them.
 */
export const ROWS = {
  baseline: row((clock) => policy({ clock })),
  naiveRetry: row((clock, random, lab) => deadlineBlind(policy({ clock, random }).timeout(T).retry({ maxAttempts: 3, backoff: constant(0) }), clock, lab.orphan)),
  failFast: row((clock, random) => strategies.failFast({ clock, random, timeoutMs: T }), true),
  boundedRetry: row((clock, random) => strategies.boundedRetry({ clock, random, attemptTimeoutMs: T, totalTimeoutMs: BOUNDED_TOTAL_MS })),
  budgetedRetry: row((clock, random) => strategies.budgetedRetry({ clock, random, timeoutMs: T })),
  standard: row((clock, random) => strategies.standard({ clock, random, timeoutMs: T, fallback: degraded }), true),
  guardedRetry: row((clock, random) => strategies.guardedRetry({ clock, random, timeoutMs: T }), true),
  slowCallShield: row((clock, random) => strategies.slowCallShield({ clock, random, timeoutMs: T, slowCallMs: 200 }), true),
  errorCountTrip: row((clock, random) => strategies.errorCountTrip({ clock, random, fallback: degraded }), true),
  idempotentRetry: row((clock, random) => strategies.idempotentRetry({ clock, random, timeoutMs: T }), false, 'requests', ['duplicates']),
  writeBehind: row(
    (clock, random, lab) => strategies.writeBehind<LabWrite>({ clock, random, timeoutMs: T, deliver: lab.deliver, keyOf: (w) => w.key }),
    true,
    'requests',
    ['backlogPeak', 'drainS', 'drainPerS', 'duplicates'],
  ),
  fallbackChain: row(
    (clock, random, lab) => strategies.fallbackChain({ clock, random, timeoutMs: T, fallbacks: [() => lab.replica()], defaultValue: DEGRADED }),
    true,
    'items',
    ['replicaShare', 'defaultShare', 'staleAgeP50S'],
  ),
  layeredBreakers: row((clock, random) => strategies.layeredBreakers({ clock, random, timeoutMs: T, fallback: degraded }), true),
  adaptiveDegrade: row((clock, random, lab) =>
    strategies.adaptiveDegrade({ clock, random, fallback: degraded, thresholds: { qpsHigh: 150, qpsMid: 100 }, signals: { cpu: lab.cpu, health: lab.health } }),
  ),
  dynamicBreaker: tripRow(TRIP_RULES.dynamicBreaker),
  ratioBreaker: tripRow(TRIP_RULES.ratioBreaker),
} satisfies Record<string, RowSpec>;

/** A row's name. */
export type RowName = keyof typeof ROWS;
/** Every row name, in table order. */
export const ROW_NAMES = Object.keys(ROWS) as RowName[];
/** The rows that play a strategy (or none: the baseline, the anti-pattern), in table order: every row but the check rows. */
export const STRATEGY_ROWS: readonly RowName[] = ROW_NAMES.filter((r) => (ROWS[r] as RowSpec).checkIn === undefined);
