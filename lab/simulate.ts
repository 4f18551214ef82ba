import type { Subscription } from 'rxjs';
import type { Clock } from '../lib/clock.js';
import type { PolicyEvent } from '../lib/events.js';
import { seededRandom } from '../lib/testing.js';
import { LabClock } from './clock.js';
import { Dependency, isFreshAnswer, type DependencyProbe } from './dependency.js';
import { MODEL, SCENARIOS, type Scenario, type ScenarioName } from './model.js';
import { modelWith, scenarioWith, type Model, type RunOverrides } from './override.js';
import { ROWS, type LabEnv, type Protection, type RowName, type Writer } from './rows.js';

/** How a request at A ended. */
export const Outcome = Object.freeze({ Failed: 0, Real: 1, Degraded: 2 } as const);

/** Everything a run recorded, in simulated time (ms since the start of the run). */
export interface RunRecord {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  readonly durationMs: number;
  /** The model the run played ({@link MODEL} unless overridden). */
  readonly model: Model;
  /** Per request at A: arrival time, latency and outcome. */
  readonly arrival: Float64Array;
  readonly latency: Float64Array;
  readonly outcome: Uint8Array;
  /** Per bucket ({@link MODEL.bucketMs}): attempts offered to C, jobs C finished for nobody, jobs held by C at the bucket's end. */
  readonly attempts: Float64Array;
  readonly wasted: Float64Array;
  readonly held: Float64Array;
  /** Per bucket: the share of it during which a breaker was not closed. */
  readonly breakerOpen: Float64Array;
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

/** Poisson arrival times in [0, durationMs), `perSecond` on average. */
export function arrivalTimes(seed: number, durationMs: number, perSecond: number = MODEL.offeredPerSecond): Float64Array {
  const random = streams(seed).arrivals;
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
  const arrival = arrivalTimes(seed, durationMs, model.offeredPerSecond);
  const n = arrival.length;
  const latency = new Float64Array(n);
  const outcome = new Uint8Array(n);
  const buckets = Math.ceil(durationMs / MODEL.bucketMs) + 1;
  const attempts = new Float64Array(buckets);
  const wasted = new Float64Array(buckets);
  const held = new Float64Array(buckets);
  const breakerOpen = new Float64Array(buckets);
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
  const probe: DependencyProbe = {
    onAttempt(t) {
      attempts[bucketOf(t)]!++;
    },
    onAttemptSettled(t, ok) {
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
  const spec = ROWS[row];
  let inFlight = 0;
  let peakInFlight = 0;
  const lab: LabEnv = {
    c,
    cpu: () => inFlight / model.inFlightLimit,
    health: () => c.health(),
    orphan: (work) => {
      inFlight++;
      const done = (): void => void inFlight--;
      work.then(done, done);
    },
    deliver: (_payload, ctx) => c.call(ctx),
  };
  const protection = spec.make(clock, rs.policy, lab);

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

  // A's deadline, a key (one of 1,000 items read, or one per request) and labels for keyed breakers
  const meta = Object.freeze({ method: 'get', service: 'C' });
  const items = Array.from({ length: 1_000 }, (_, k) => `item-${k}`);
  const itemOf = rs.items;
  const keyOf = spec.keys === 'requests' ? (i: number) => `request-${i}` : () => items[Math.floor(itemOf() * items.length)]!;
  const writer = isWriter(protection);
  const call: (i: number) => Promise<unknown> = isWriter(protection)
    ? (i) => {
        const key = keyOf(i);
        return protection.write({ key }, { key });
      }
    : (i) => protection.execute(c.op, { timeout: model.callerPatienceMs, key: keyOf(i), meta });
  const settle = (i: number, value: unknown, failed: boolean): void => {
    inFlight--;
    latency[i] = clock.now() - t0 - arrival[i]!;
    // real: a fresh answer of C, made after the request arrived (a cached copy of an older one is degraded)
    // for a writer: delivered now is real, durably queued is answered
    const real = writer ? (value as { status?: string } | undefined)?.status === 'delivered' : isFreshAnswer(value, arrival[i]!);
    outcome[i] = failed ? Outcome.Failed : real ? Outcome.Real : Outcome.Degraded;
  };
  let next = 0;
  const arrive = (): void => {
    const i = next++;
    if (next < n) clock.setTimeout(arrive, arrival[next]! - arrival[i]!);
    if (inFlight >= model.inFlightLimit) {
      outcome[i] = Outcome.Failed; // B refuses: no thread left
      latency[i] = 0;
      return;
    }
    inFlight++;
    if (inFlight > peakInFlight && arrival[i]! >= scenario.faultStartMs && arrival[i]! < scenario.faultEndMs + model.afterFaultMs) peakInFlight = inFlight;
    call(i).then(
      (v) => settle(i, v, false),
      () => settle(i, undefined, true),
    );
  };
  if (n > 0) clock.setTimeout(arrive, arrival[0]!);
  const sample = (): void => {
    const t = clock.now() - t0;
    held[bucketOf(t - 1)] = c.held;
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
    }, scenario.faultEndMs);
  }
  // let the last requests settle: A gives up after its patience at the latest
  await clock.run(t0 + durationMs + model.callerPatienceMs + 100);
  if (openBreakers > 0) addOpenTime(openSince, durationMs);
  sub?.unsubscribe();
  return {
    row,
    scenario: scenarioName,
    durationMs,
    model,
    arrival,
    latency,
    outcome,
    attempts,
    wasted,
    held,
    breakerOpen,
    peakInFlight,
    firstOpenAfterFault: firstOpen,
    probes,
    probesOk,
    timers: clock.fired,
    atFaultEnd,
  };
}
