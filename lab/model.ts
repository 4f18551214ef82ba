/**
 * The lab's default model (strategies.md, "The lab") and its five scenarios.
 * Times are milliseconds since the start of a run.
 */

/** The numbers of the default model; change one only with a reason written in docs/lab.md. */
export const MODEL = Object.freeze({
  /** A's offered load, requests per second (Poisson arrivals). */
  offeredPerSecond: 200,
  /** How long A's caller waits for an answer before giving up (its deadline, propagated to B and C). */
  callerPatienceMs: 500,
  /** B's bound on calls in flight (its "threads"); past it B refuses at once. */
  inFlightLimit: 100,
  /** Time B gives each attempt at C, for rows that time attempts out. */
  attemptTimeoutMs: 300,
  /** C's concurrent workers. */
  workers: 6,
  /** C's mean service time (exponential), ms. */
  serviceMeanMs: 20,
  /** C's FIFO queue; past it C refuses at once. */
  queueLimit: 1_000,
  /** Default run length, ms. */
  durationMs: 180_000,
  /** The fault starts here. */
  faultStartMs: 30_000,
  /** The fault ends here (90 s for the 30 % errors scenario). */
  faultEndMs: 60_000,
  /** Figures are measured over the fault and this long after it. */
  afterFaultMs: 60_000,
  /** Width of a time-series bucket of the report, ms. */
  bucketMs: 1_000,
});

/** The names of the scenarios, in report order. */
export const SCENARIO_NAMES = ['hardOutage', 'latency', 'errors', 'capacityDrop', 'flapping'] as const;
/** One of {@link SCENARIO_NAMES}. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** A fault of C: what C is like at each moment of a run. */
export interface Scenario {
  readonly name: ScenarioName;
  /** Human title for the table and the report. */
  readonly title: string;
  readonly faultStartMs: number;
  readonly faultEndMs: number;
  /** Moments at which C's condition changes (C restarts idle workers there). */
  readonly changesAt: readonly number[];
  /** True while C refuses every call at once (fast errors). */
  down(t: number): boolean;
  /** Multiplier of the service time of a job started at `t`. */
  slowdown(t: number): number;
  /** Chance that a job finished at `t` fails. */
  errorRate(t: number): number;
  /** C's workers at `t`. */
  workers(t: number): number;
}

const S = MODEL.faultStartMs;
const E = MODEL.faultEndMs;
const during = (t: number, end: number = E): boolean => t >= S && t < end;

/** The five scenarios of strategies.md, by name. */
export const SCENARIOS: Readonly<Record<ScenarioName, Scenario>> = Object.freeze({
  hardOutage: {
    name: 'hardOutage',
    title: 'hard outage',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    down: (t) => during(t),
    slowdown: () => 1,
    errorRate: () => 0,
    workers: () => MODEL.workers,
  },
  latency: {
    name: 'latency',
    title: 'latency ×50',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    down: () => false,
    slowdown: (t) => (during(t) ? 50 : 1),
    errorRate: () => 0,
    workers: () => MODEL.workers,
  },
  errors: {
    name: 'errors',
    title: '30 % errors',
    faultStartMs: S,
    faultEndMs: 90_000,
    changesAt: [S, 90_000],
    down: () => false,
    slowdown: () => 1,
    errorRate: (t) => (during(t, 90_000) ? 0.3 : 0),
    workers: () => MODEL.workers,
  },
  capacityDrop: {
    name: 'capacityDrop',
    title: 'capacity 3/6',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    down: () => false,
    slowdown: () => 1,
    errorRate: () => 0,
    workers: (t) => (during(t) ? 3 : MODEL.workers),
  },
  flapping: {
    name: 'flapping',
    title: 'flapping 5 s',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, 35_000, 40_000, 45_000, 50_000, 55_000, E],
    // 5 s down, 5 s up: down in [30, 35), [40, 45), [50, 55)
    down: (t) => during(t) && Math.floor((t - S) / 5_000) % 2 === 0,
    slowdown: () => 1,
    errorRate: () => 0,
    workers: () => MODEL.workers,
  },
});
