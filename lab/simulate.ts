import type { Subscription } from 'rxjs';
import type { Clock } from '../lib/clock.js';
import type { PolicyEvent } from '../lib/events.js';
import { seededRandom } from '../lib/testing.js';
import { withWaves } from './arrivals.js';
import { LabClock } from './clock.js';
import { Dependency, isFreshAnswer, replicaAnswer, type DependencyProbe } from './dependency.js';
import { MODEL, SCENARIOS, type Scenario, type ScenarioName } from './model.js';
import { modelWith, scenarioWith, type Model, type RunOverrides } from './override.js';
import { ROWS, type LabEnv, type LabWrite, type Protection, type RowName, type Writer } from './rows.js';

/** How a request at A ended. */
export const Outcome = Object.freeze({ Failed: 0, Real: 1, Degraded: 2 } as const);

/** Where an answer came from: none (failed, or a writer's), C fresh, C's data cached earlier, the replica, the default. */
export const Source = Object.freeze({ None: 0, Fresh: 1, Stale: 2, Replica: 3, Default: 4 } as const);

/** The requests of one traffic class: arrival time, latency and outcome of each. */
export interface ClassRecord {
  readonly arrival: Float64Array;
  readonly latency: Float64Array;
  readonly outcome: Uint8Array;
}

/** Everything a run recorded, in simulated time (ms since the start of the run). */
export interface RunRecord {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  readonly durationMs: number;
  /** When the fault ended in this run: the scenario's end, or where a `faultMs` override moved it (optional in records made by hand). */
  readonly faultEndMs?: number;
  /** The model the run played ({@link MODEL} unless overridden). */
  readonly model: Model;
  /** Per request at A: arrival time, latency and outcome. */
  readonly arrival: Float64Array;
  readonly latency: Float64Array;
  readonly outcome: Uint8Array;
  /** Per request at A: where its answer came from ({@link Source}) and, for an answer carrying data, its age when served (ms; NaN otherwise). */
  readonly source?: Uint8Array;
  readonly age?: Float64Array;
  /** The second traffic class's requests, when the scenario has one. */
  readonly second?: ClassRecord;
  /** Share of the keys whose side effect C applied more than once (of the keys it applied). */
  readonly duplicates?: number;
  /**
   * For a writer: the most writes queued at once, the writes queued when the fault ended and when the run ended,
   * and when the queue was first empty again at or after the fault's end (ms; undefined: never within the run).
   */
  readonly backlog?: { readonly peak: number; readonly atFaultEnd: number; readonly atEnd: number; readonly drainedAt: number | undefined };
  /** Per bucket ({@link MODEL.bucketMs}): attempts offered to C, jobs C finished for nobody, jobs held by C at the bucket's end. */
  readonly attempts: Float64Array;
  readonly wasted: Float64Array;
  readonly held: Float64Array;
  /** Attempts offered to C per 10 ms, in a scenario that measures C's peak load (`peakLoadPerS`). */
  readonly attemptsPer10Ms?: Float64Array;
  /** Per request at A, in a scenario whose clients retry: how many times A's client sent it. */
  readonly sends?: Uint8Array;
  /** Per bucket: the share of it during which a breaker was not closed. */
  readonly breakerOpen: Float64Array;
  /** Per request at A: 1 when B admitted it (had a thread for it). */
  readonly admitted?: Uint8Array;
  /** Per bucket: attempts at C that settled for their caller, and those C answered. */
  readonly settled?: Float64Array;
  readonly answered?: Float64Array;
  readonly peakInFlight: number;
  /** Time of the first breaker opening at or after the fault's start (ms), or undefined. */
  readonly firstOpenAfterFault: number | undefined;
  /** Attempts at C while a breaker was not closed, in the 10 s after the fault, and how many of them C answered. */
  readonly probes: number;
  readonly probesOk: number;
  /** Timers the lab clock fired. */
  readonly timers: number;
  /**
   * When the fault ended: the breakers' state (`'open'` if any is open, else `'half-open'` if any is, else
   * `'closed'`), how long the open one had been open (ms), and the jobs C held then.
   */
  readonly atFaultEnd: { readonly state: 'open' | 'half-open' | 'closed'; readonly openElapsedMs: number; readonly backlog: number };
}

/** Seeds of the independent random streams of a run (common random numbers: every row sees the same arrivals). */
function streams(seed: number) {
  return { arrivals: seededRandom(seed * 7 + 1), service: seededRandom(seed * 7 + 2), policy: seededRandom(seed * 7 + 3), items: seededRandom(seed * 7 + 4) };
}

/**
 * Seeds of the streams the focused scenarios add (lab/model.ts): the second class's arrivals, the resubmits, and
 * D's service times and the second protection's random source. Apart from the others, so the five faults' runs
 * draw exactly what they drew before.
 */
function moreStreams(seed: number) {
  // seed * 7 + 1..4 are taken above; past the seeds' range for the two that do not fit in the same slots
  return { second: seededRandom(seed * 7 + 5), resubmit: seededRandom(seed * 7 + 6), d: seededRandom(1_000_000 + seed * 2), policy2: seededRandom(1_000_001 + seed * 2) };
}

/**
 * Poisson arrival times in [0, durationMs): A's requests (`perSecond` on average, the model's offered load by
 * default), or, `second` set, the second class's.
 */
export function arrivalTimes(seed: number, durationMs: number, perSecond: number = MODEL.offeredPerSecond, second = false): Float64Array {
  const random = second ? moreStreams(seed).second : streams(seed).arrivals;
  const meanGap = 1_000 / perSecond;
  const out: number[] = [];
  for (let t = -Math.log(1 - random()) * meanGap; t < durationMs; t += -Math.log(1 - random()) * meanGap) out.push(t);
  return Float64Array.from(out);
}

const isWriter = (p: Protection): p is Writer => typeof (p as Writer).write === 'function';

/** The clock a run plays on: `run(until)` fires every timer due up to `until`; `fired` counts them. */
export interface SimulationClock extends Clock {
  run(until: number): Promise<void>;
  readonly fired: number;
}

/** Makes a run's clock, starting at `startEpochMs`: the {@link LabClock} by default (a test plays the same run on `TestClock`). */
export type ClockFactory = (startEpochMs: number) => SimulationClock;

const labClock: ClockFactory = (start) => new LabClock(start);

/**
 * Plays one row in one scenario and records it, on {@link MODEL} and the scenario unless `overrides` changes
 * them. One run per thread at a time (the lab clock drains the event loop).
 */
export async function simulate(
  row: RowName,
  scenarioName: ScenarioName,
  seed: number,
  durationMs: number = MODEL.durationMs,
  makeClock: ClockFactory = labClock,
  overrides: RunOverrides = {},
): Promise<RunRecord> {
  const model = modelWith(overrides.model);
  const scenario = scenarioWith(SCENARIOS[scenarioName], overrides.scenario);
  const stackTraceLimit = Error.stackTraceLimit;
  // millions of simulated errors: their stack traces cost more than the rest of the run
  Error.stackTraceLimit = 0;
  try {
    return await play(row, scenarioName, seed, durationMs, makeClock, model, scenario);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

async function play(
  row: RowName,
  scenarioName: ScenarioName,
  seed: number,
  durationMs: number,
  makeClock: ClockFactory,
  model: Model,
  scenario: Scenario,
): Promise<RunRecord> {
  const rs = streams(seed);
  const arrival = withWaves(arrivalTimes(seed, durationMs, model.offeredPerSecond), scenario, durationMs);
  const n = arrival.length;
  const latency = new Float64Array(n);
  const outcome = new Uint8Array(n);
  const buckets = Math.ceil(durationMs / MODEL.bucketMs) + 1;
  const attempts = new Float64Array(buckets);
  const wasted = new Float64Array(buckets);
  const held = new Float64Array(buckets);
  const breakerOpen = new Float64Array(buckets);
  const settledAtC = new Float64Array(buckets);
  const answeredAtC = new Float64Array(buckets);
  const admitted = new Uint8Array(n);
  const t0 = 1_000_000;
  const clock = makeClock(t0);
  const probeFrom = scenario.faultEndMs;
  const probeTo = scenario.faultEndMs + 10_000;
  let openBreakers = 0;
  let openSince = 0;
  let firstOpen: number | undefined;
  let probes = 0;
  let probesOk = 0;
  const bucketOf = (t: number): number => Math.min(buckets - 1, Math.floor(t / MODEL.bucketMs));
  const fine = scenario.measures?.includes('peakLoadPerS') === true ? new Float64Array(Math.ceil(durationMs / 10) + 1) : undefined;
  const probe: DependencyProbe = {
    onAttempt(t) {
      attempts[bucketOf(t)]!++;
      if (fine !== undefined) fine[Math.min(fine.length - 1, Math.floor(t / 10))]!++;
    },
    onAttemptSettled(t, ok) {
      settledAtC[bucketOf(t)]!++;
      if (ok) answeredAtC[bucketOf(t)]!++;
      if (openBreakers > 0 && t >= probeFrom && t < probeTo) {
        probes++;
        if (ok) probesOk++;
      }
    },
    onWasted(t) {
      wasted[bucketOf(t)]!++;
    },
  };
  const c = new Dependency(clock, rs.service, scenario, probe, t0, model);
  const more = moreStreams(seed);
  const spec = ROWS[row];
  let inFlight = 0;
  let peakInFlight = 0;
  const envOf = (dep: Dependency): LabEnv => ({
    c: dep,
    cpu: () => inFlight / model.inFlightLimit,
    health: () => dep.health(),
    orphan: (work) => {
      inFlight++;
      const done = (): void => void inFlight--;
      work.then(done, done);
    },
    deliver: (payload, ctx) => dep.call(ctx, (payload as LabWrite).key),
    replica: () => replicaAnswer(clock, t0),
  });
  const protection = spec.make(clock, rs.policy, envOf(c));

  // breaker state from the protection's events: count breakers not closed
  const states = new Map<string, string>();
  const openedAt = new Map<string, number>();
  const addOpenTime = (from: number, to: number): void => {
    for (let t = from; t < to; ) {
      const b = bucketOf(t);
      const end = Math.min(to, (b + 1) * MODEL.bucketMs);
      breakerOpen[b]! += (end - t) / MODEL.bucketMs;
      t = end;
    }
  };
  let sub: Subscription | undefined;
  if (spec.breaker && protection.events$ !== undefined) {
    sub = protection.events$.subscribe((e: PolicyEvent) => {
      if (e.type !== 'stateChange') return;
      const t = clock.now() - t0;
      const was = openBreakers;
      const key = e.policy;
      states.set(key, e.to);
      if (e.to === 'open') openedAt.set(key, t);
      openBreakers = 0;
      for (const s of states.values()) if (s !== 'closed') openBreakers++;
      if (was === 0 && openBreakers > 0) {
        openSince = t;
        if (firstOpen === undefined && t >= scenario.faultStartMs) firstOpen = t;
      } else if (was > 0 && openBreakers === 0) addOpenTime(openSince, t);
    });
  }

  // A's deadline, a key (one of the items read, or one per request) and labels for keyed breakers
  const meta = Object.freeze({ method: 'get', service: 'C' });
  const itemCount = scenario.items ?? 1_000;
  const itemOf = rs.items;
  const perRequest = spec.keys === 'requests' || scenario.writes === true;
  const keyOf = perRequest ? (i: number) => `request-${i}` : () => `item-${Math.floor(itemOf() * itemCount)}`;
  const callOf = (p: Protection, dep: Dependency, callMeta: Readonly<Record<string, string>>): ((key: string) => Promise<unknown>) =>
    isWriter(p) ? (key) => p.write({ key } satisfies LabWrite, { key }) : (key) => p.execute(dep.op, { timeout: model.callerPatienceMs, key, meta: callMeta });
  const call = callOf(protection, c, meta);
  const writer = isWriter(protection);
  const source = new Uint8Array(n);
  const age = new Float64Array(n).fill(NaN);
  const settle = (i: number, value: unknown, failed: boolean, key?: string): void => {
    inFlight--;
    const now = clock.now() - t0;
    latency[i] = now - arrival[i]!;
    // real: a fresh answer of C, made after the request arrived (a cached copy of an older one is degraded)
    // for a writer: delivered now is real, durably queued is answered
    const real = writer ? (value as { status?: string } | undefined)?.status === 'delivered' : isFreshAnswer(value, arrival[i]!);
    outcome[i] = failed ? Outcome.Failed : real ? Outcome.Real : Outcome.Degraded;
    if (failed) resend?.(i, key);
    if (failed || writer) return;
    const from = (value as { from?: string; at?: number } | undefined)?.from;
    source[i] = real ? Source.Fresh : from === 'C' ? Source.Stale : from === 'replica' ? Source.Replica : Source.Default;
    if (from === 'C' || from === 'replica') age[i] = now - (value as { at: number }).at;
  };
  // B admits a call when it has a thread left; the call holds it until it settles
  const admit = (arrivedAt: number): boolean => {
    if (inFlight >= model.inFlightLimit) return false; // B refuses: no thread left
    inFlight++;
    if (inFlight > peakInFlight && arrivedAt >= scenario.faultStartMs && arrivedAt < scenario.faultEndMs + model.afterFaultMs) peakInFlight = inFlight;
    return true;
  };
  const resubmit = scenario.resubmit;
  const again = (key: string): void => {
    // the same request sent again: it needs a thread of B, and its answer is nobody's figure
    if (!admit(clock.now() - t0)) return;
    const done = (): void => void inFlight--;
    call(key).then(done, done);
  };
  // A's clients that send a failed request again (scenario.clientRetries), under the same key once one is drawn
  const clientRetries = scenario.clientRetries;
  const sends = clientRetries === undefined ? undefined : new Uint8Array(n);
  const resend =
    sends === undefined
      ? undefined
      : (i: number, key: string | undefined): void => {
          if (sends[i]! > clientRetries!.tries) return;
          clock.setTimeout(() => {
            sends[i]!++;
            if (!admit(arrival[i]!)) {
              latency[i] = clock.now() - t0 - arrival[i]!;
              resend!(i, key);
              return;
            }
            const k = key ?? keyOf(i);
            call(k).then(
              (v) => settle(i, v, false, k),
              () => settle(i, undefined, true, k),
            );
          }, clientRetries!.afterMs);
        };
  let next = 0;
  const arrive = (): void => {
    const i = next++;
    if (next < n) clock.setTimeout(arrive, arrival[next]! - arrival[i]!);
    const twice = resubmit !== undefined && more.resubmit() < resubmit.share;
    if (sends !== undefined) sends[i] = 1;
    if (!admit(arrival[i]!)) {
      outcome[i] = Outcome.Failed;
      latency[i] = 0;
      // the user sends it again all the same (a key per request: nothing drawn)
      if (twice && perRequest) clock.setTimeout(() => again(keyOf(i)), resubmit.afterMs);
      resend?.(i, undefined);
      return;
    }
    admitted[i] = 1;
    // the key is drawn once B admits the request (the items stream is drawn as it always was)
    const key = keyOf(i);
    if (twice) clock.setTimeout(() => again(key), resubmit.afterMs);
    call(key).then(
      (v) => settle(i, v, false, key),
      () => settle(i, undefined, true, key),
    );
  };
  if (n > 0) clock.setTimeout(arrive, arrival[0]!);
  const second =
    scenario.second === undefined
      ? undefined
      : playSecond(scenario, seed, durationMs, clock, t0, {
          more,
          admit,
          release: () => void inFlight--,
          callC: callOf(protection, c, Object.freeze({ method: scenario.second.method, service: 'C' })),
          callD: (d) => callOf(spec.make(clock, more.policy2, envOf(d)), d, Object.freeze({ method: scenario.second!.method, service: 'D' })),
        });
  const queued = writer ? (): number => (protection as Writer).queued ?? 0 : undefined;
  let backlogPeak = 0;
  let queuedAtFaultEnd = 0;
  let drainedAt: number | undefined;
  const watchBacklog = (): void => {
    if (queued === undefined) return;
    const t = clock.now() - t0;
    const q = queued();
    if (q > backlogPeak) backlogPeak = q;
    if (q === 0 && drainedAt === undefined && t >= scenario.faultEndMs) drainedAt = t;
  };
  // the writer's queue shrinks on each replay: check it then, and at every bucket
  const replays = writer ? protection.events$?.subscribe((e: PolicyEvent) => (e.type === 'replayed' || e.type === 'writeQueued' ? watchBacklog() : undefined)) : undefined;
  const sample = (): void => {
    const t = clock.now() - t0;
    held[bucketOf(t - 1)] = c.held;
    watchBacklog();
    if (t + MODEL.bucketMs <= durationMs) clock.setTimeout(sample, MODEL.bucketMs);
  };
  clock.setTimeout(sample, MODEL.bucketMs);
  let atFaultEnd: RunRecord['atFaultEnd'] = { state: 'closed', openElapsedMs: 0, backlog: 0 };
  if (scenario.faultEndMs < durationMs) {
    clock.setTimeout(() => {
      const t = clock.now() - t0;
      let state: RunRecord['atFaultEnd']['state'] = 'closed';
      let openElapsedMs = 0;
      for (const [key, s] of states) {
        if (s === 'open') {
          // the most recently opened breaker waits longest
          openElapsedMs = state === 'open' ? Math.min(openElapsedMs, t - openedAt.get(key)!) : t - openedAt.get(key)!;
          state = 'open';
        } else if (s === 'half-open' && state === 'closed') state = 'half-open';
      }
      atFaultEnd = { state, openElapsedMs, backlog: c.held };
      queuedAtFaultEnd = queued?.() ?? 0;
    }, scenario.faultEndMs);
  }
  // let the last requests settle: A gives up after its patience at the latest
  await clock.run(t0 + durationMs + model.callerPatienceMs + 100);
  if (openBreakers > 0) addOpenTime(openSince, durationMs);
  sub?.unsubscribe();
  replays?.unsubscribe();
  return {
    row,
    scenario: scenarioName,
    durationMs,
    faultEndMs: scenario.faultEndMs,
    model,
    arrival,
    latency,
    outcome,
    source,
    age,
    ...(second === undefined ? {} : { second }),
    duplicates: c.duplicateShare(),
    ...(queued === undefined ? {} : { backlog: { peak: backlogPeak, atFaultEnd: queuedAtFaultEnd, atEnd: queued(), drainedAt } }),
    attempts,
    ...(fine === undefined ? {} : { attemptsPer10Ms: fine }),
    ...(sends === undefined ? {} : { sends }),
    wasted,
    held,
    breakerOpen,
    admitted,
    settled: settledAtC,
    answered: answeredAtC,
    peakInFlight,
    firstOpenAfterFault: firstOpen,
    probes,
    probesOk,
    timers: clock.fired,
    atFaultEnd,
  };
}

/**
 * Plays the scenario's second traffic class at B: its own Poisson arrivals, admitted on B's threads (`admit`,
 * `release`), to C through the row's protection or to D, a healthy dependency like C, through its own instance
 * of the row (`makeFor`). Returns the class's requests, filled in as the run plays.
 */
function playSecond(
  scenario: Scenario,
  seed: number,
  durationMs: number,
  clock: Clock,
  t0: number,
  b: {
    readonly more: ReturnType<typeof moreStreams>;
    /** Takes one of B's threads for a request that arrived at `arrivedAt`, or says there is none. */
    readonly admit: (arrivedAt: number) => boolean;
    readonly release: () => void;
    /** Calls C through the row's protection. */
    readonly callC: (key: string) => Promise<unknown>;
    /** Calls `d` through a new instance of the row. */
    readonly callD: (d: Dependency) => (key: string) => Promise<unknown>;
  },
): ClassRecord {
  const spec = scenario.second!;
  const arrival = arrivalTimes(seed, durationMs, spec.perSecond, true);
  const n = arrival.length;
  const latency = new Float64Array(n);
  const outcome = new Uint8Array(n);
  const quiet: DependencyProbe = { onAttempt: () => undefined, onAttemptSettled: () => undefined, onWasted: () => undefined };
  const call = spec.target === 'D' ? b.callD(new Dependency(clock, b.more.d, HEALTHY, quiet, t0)) : b.callC;
  let next = 0;
  const arrive = (): void => {
    const i = next++;
    if (next < n) clock.setTimeout(arrive, arrival[next]! - arrival[i]!);
    if (!b.admit(arrival[i]!)) return; // refused: outcome stays Failed, latency 0
    const settle = (value: unknown, failed: boolean): void => {
      b.release();
      latency[i] = clock.now() - t0 - arrival[i]!;
      const real = (value as { status?: string } | undefined)?.status === 'delivered' || isFreshAnswer(value, arrival[i]!);
      outcome[i] = failed ? Outcome.Failed : real ? Outcome.Real : Outcome.Degraded;
    };
    call(`other-${i}`).then(
      (v) => settle(v, false),
      () => settle(undefined, true),
    );
  };
  if (n > 0) clock.setTimeout(arrive, arrival[0]!);
  return { arrival, latency, outcome };
}

/** D: a dependency like C that no fault touches. */
const HEALTHY: Scenario = Object.freeze({
  name: 'hardOutage',
  title: 'healthy',
  faultStartMs: Infinity,
  faultEndMs: Infinity,
  changesAt: [],
  down: () => false,
  slowdown: () => 1,
  errorRate: () => 0,
  workers: () => MODEL.workers,
});
