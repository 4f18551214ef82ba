/**
 * The lab's default model (strategies.md, "The lab"), the five faults of seed 002 and the scenarios that add
 * what some claims need (a second traffic class, duplicate submits, a cold cache, a sick method, a moderate
 * slowdown, synchronized waves of requests whose clients retry).
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

/** The five faults of seed 002: every row runs in each of them. */
export const FAULT_NAMES = ['hardOutage', 'latency', 'errors', 'capacityDrop', 'flapping'] as const;
/**
 * The scenarios some claims need beyond the five faults: only the rows whose claims name them (and the baseline)
 * run there (lab/plan.ts).
 */
export const FOCUSED_NAMES = ['avalanche', 'hanging', 'methodSick', 'duplicates', 'coldCache', 'networkDelay', 'slowdown', 'waves'] as const;
/** The names of the scenarios, in report order. */
export const SCENARIO_NAMES = [...FAULT_NAMES, ...FOCUSED_NAMES] as const;
/** One of {@link SCENARIO_NAMES}. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** A figure a scenario or a row records beyond the common ones (lab/seeds.ts lists them). */
export type ExtraMetric =
  | 'healthyRealInFault'
  | 'duplicates'
  | 'backlogPeak'
  | 'drainS'
  | 'drainPerS'
  | 'replicaShare'
  | 'defaultShare'
  | 'staleAgeP50S'
  | 'peakLoadPerS'
  | 'clientAmplification';

/**
 * A second traffic class at B, on the same threads (B's in-flight limit) as A's requests to C: its own Poisson
 * arrivals, to C under another method (through the same protection: one client of C) or to D, a healthy
 * dependency like C (through its own instance of the row: B protects each dependency with its own pipeline).
 */
export interface SecondClass {
  readonly perSecond: number;
  readonly method: string;
  readonly target: 'C' | 'D';
}

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
  /** Time a call spends on the network before it reaches C, ms (C itself unaffected). @defaultValue 0 */
  networkDelayMs?(t: number): number;
  /** True while C accepts calls and never answers them (a hanging outage: only the caller's deadline ends the wait). */
  hangs?(t: number): boolean;
  /** The method the fault hits (`ctx.meta.method`); calls of any other method find C healthy. @defaultValue every method */
  readonly sickMethod?: string;
  /** A second traffic class at B (the avalanche of seed 000: unrelated requests that need B's threads). */
  readonly second?: SecondClass;
  /** A's clients send `share` of the requests again, with the same key, `afterMs` after the first (a double submit). */
  readonly resubmit?: { readonly share: number; readonly afterMs: number };
  /**
   * During the fault A's requests come in synchronized waves instead of Poisson arrivals: `size` requests every
   * `everyMs` (from the fault's start), spread evenly over `withinMs` (a batch job, or a client-side cache that
   * expires for everyone at once). A's mean load is unchanged when `size` = 200/s × `everyMs`.
   */
  readonly waves?: { readonly everyMs: number; readonly size: number; readonly withinMs: number };
  /**
   * A's callers send a request that failed (an error, B's refusal, or their patience run out) again, `afterMs`
   * after the failure, up to `tries` more times (a fixed delay, no jitter: a client library's default). The
   * request's figures are its last send's; its latency runs from its first.
   */
  readonly clientRetries?: { readonly tries: number; readonly afterMs: number };
  /** Every request is a write with its own key (an idempotency key), whatever the row. */
  readonly writes?: boolean;
  /** How many items the reads spread over. @defaultValue 1,000 */
  readonly items?: number;
  /** What the scenario records beyond the common figures. */
  readonly measures?: readonly ExtraMetric[];
}

const S = MODEL.faultStartMs;
const E = MODEL.faultEndMs;
const during = (t: number, end: number = E): boolean => t >= S && t < end;

const healthy = {
  down: () => false,
  slowdown: () => 1,
  errorRate: () => 0,
  workers: () => MODEL.workers,
} as const;
/**
 * C's service time ×1.4 in the `slowdown` scenario: 6 workers at 28 ms mean take 214 requests/s against A's 200
 * (utilisation 0.93): C keeps up in principle (p99 about 230 ms without retries), while its queue now and then
 * surges past B's 300 ms attempt timeout (docs/lab.md, "Focused scenarios", says why ×1.4).
 */
export const SLOWDOWN = 1.4;
/** B's other traffic in the avalanche and the hanging outage: 100 requests/s to D, a healthy dependency like C. */
const OTHER_TRAFFIC: SecondClass = Object.freeze({ perSecond: 100, method: 'get', target: 'D' });

/** Every scenario, by name: the five of strategies.md, then the focused ones. */
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
  avalanche: {
    name: 'avalanche',
    title: 'avalanche: latency ×50 + other traffic',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    slowdown: (t) => (during(t) ? 50 : 1),
    second: OTHER_TRAFFIC,
    measures: ['healthyRealInFault'],
  },
  hanging: {
    name: 'hanging',
    title: 'hanging outage + other traffic',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    hangs: (t) => during(t),
    second: OTHER_TRAFFIC,
    measures: ['healthyRealInFault'],
  },
  methodSick: {
    name: 'methodSick',
    title: 'one method down',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    down: (t) => during(t),
    sickMethod: 'get',
    second: Object.freeze({ perSecond: 50, method: 'list', target: 'C' }),
    measures: ['healthyRealInFault'],
  },
  duplicates: {
    name: 'duplicates',
    title: '30 % errors + double submits',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    errorRate: (t) => (during(t) ? 0.3 : 0),
    writes: true,
    resubmit: Object.freeze({ share: 0.3, afterMs: 100 }),
    measures: ['duplicates'],
  },
  coldCache: {
    name: 'coldCache',
    title: 'hard outage, cold cache',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    down: (t) => during(t),
    items: 100_000,
  },
  networkDelay: {
    name: 'networkDelay',
    title: 'network delay +250 ms',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    networkDelayMs: (t) => (during(t) ? 250 : 0),
  },
  slowdown: {
    name: 'slowdown',
    title: `slowdown ×${SLOWDOWN}`,
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    slowdown: (t) => (during(t) ? SLOWDOWN : 1),
  },
  waves: {
    name: 'waves',
    title: 'hard outage, waves, clients retrying',
    faultStartMs: S,
    faultEndMs: E,
    changesAt: [S, E],
    ...healthy,
    down: (t) => during(t),
    waves: Object.freeze({ everyMs: 400, size: 80, withinMs: 10 }),
    clientRetries: Object.freeze({ tries: 2, afterMs: 1_000 }),
    measures: ['peakLoadPerS', 'clientAmplification'],
  },
});
