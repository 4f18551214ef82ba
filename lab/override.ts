import { above, checkOptions, intAtLeast, number, object, optional, positiveMs, ratio } from '../lib/options.js';
import { MODEL, type Scenario } from './model.js';

/** The numbers of the lab's model ({@link MODEL}'s shape, as plain numbers). */
export type Model = { readonly [K in keyof typeof MODEL]: number };

/**
 * The numbers of the model a run may change: those the simulation and C read while a run plays. The others
 * stay {@link MODEL}'s: C's workers and the fault's times shape the scenarios, B's attempt timeout the rows,
 * the run length is its own argument, and the windows and buckets the figures.
 */
export type ModelOverride = Partial<Pick<Model, 'offeredPerSecond' | 'callerPatienceMs' | 'inFlightLimit' | 'serviceMeanMs' | 'queueLimit'>>;

/**
 * What a run may change of its scenario's fault (its start stays the scenario's):
 * `faultMs`, the fault's length (its end moves; the fault's course repeats from its start when it is longer,
 * so a flapping fault keeps flapping, and C is as after the fault once it ends);
 * `errorRate`, the chance that C fails a job it finishes during the fault, in place of the scenario's;
 * `flapPeriodMs`, C down for that long then up for as long, from the fault's start to its end (in place of
 * the scenario's down periods).
 */
export interface ScenarioOverride {
  readonly faultMs?: number;
  readonly errorRate?: number;
  readonly flapPeriodMs?: number;
}

/** What a run changes of the lab's defaults: plain data, so a job carries it to a worker thread. */
export interface RunOverrides {
  readonly model?: ModelOverride;
  readonly scenario?: ScenarioOverride;
}

const perSecond = number('expected a finite number per second', above(0, 'expected a number greater than 0'));
const modelRule = object({
  offeredPerSecond: optional(perSecond),
  callerPatienceMs: optional(positiveMs),
  inFlightLimit: optional(intAtLeast(1)),
  serviceMeanMs: optional(positiveMs),
  queueLimit: optional(intAtLeast(0)),
});
const scenarioRule = object({ faultMs: optional(positiveMs), errorRate: optional(ratio), flapPeriodMs: optional(positiveMs) });

/** {@link MODEL} with `override`'s numbers (MODEL itself when there are none); a bad number throws a ConfigError naming it. */
export function modelWith(override: ModelOverride = {}): Model {
  const checked = checkOptions(modelRule, override, 'lab model');
  const set = Object.entries(checked).filter(([, v]) => v !== undefined);
  return set.length === 0 ? MODEL : Object.freeze({ ...MODEL, ...Object.fromEntries(set) });
}

/** `scenario` with `override`'s fault (the scenario itself when there is none); a bad value throws a ConfigError naming it. */
export function scenarioWith(scenario: Scenario, override: ScenarioOverride = {}): Scenario {
  const { faultMs, errorRate, flapPeriodMs } = checkOptions(scenarioRule, override, 'lab scenario');
  if (faultMs !== undefined) scenario = lengthened(scenario, faultMs);
  if (errorRate === undefined && flapPeriodMs === undefined) return scenario;
  const { faultStartMs: from, faultEndMs: to } = scenario;
  const during = (t: number): boolean => t >= from && t < to;
  const out: { -readonly [K in keyof Scenario]: Scenario[K] } = { ...scenario };
  if (errorRate !== undefined) out.errorRate = (t) => (during(t) ? errorRate : 0);
  if (flapPeriodMs !== undefined) {
    const changes: number[] = [];
    for (let t = from; t < to; t += flapPeriodMs) changes.push(t);
    out.changesAt = [...changes, to];
    out.down = (t) => during(t) && Math.floor((t - from) / flapPeriodMs) % 2 === 0;
  }
  return Object.freeze(out);
}

/**
 * `scenario` with a fault `faultMs` long from the same start: inside the new fault C is as at the same point of
 * the scenario's fault, its course repeated from the start when the new one is longer; after the new end C is
 * as after the scenario's end, that long after it.
 */
function lengthened(scenario: Scenario, faultMs: number): Scenario {
  const { faultStartMs: from, faultEndMs: end } = scenario;
  const length = end - from;
  const to = from + faultMs;
  const at = (t: number): number => (t < from ? t : t < to ? from + ((t - from) % length) : end + (t - to));
  const moved =
    <R>(fn: (t: number) => R) =>
    (t: number): R =>
      fn(at(t));
  const out: { -readonly [K in keyof Scenario]: Scenario[K] } = {
    ...scenario,
    faultEndMs: to,
    down: moved(scenario.down),
    slowdown: moved(scenario.slowdown),
    errorRate: moved(scenario.errorRate),
    workers: moved(scenario.workers),
  };
  if (scenario.networkDelayMs !== undefined) out.networkDelayMs = moved(scenario.networkDelayMs);
  if (scenario.hangs !== undefined) out.hangs = moved(scenario.hangs);
  const inFault = scenario.changesAt.filter((c) => c > from && c < end);
  const changes: number[] = [];
  for (let offset = 0; from + offset < to; offset += length) for (const c of [from, ...inFault]) if (c + offset < to) changes.push(c + offset);
  changes.push(to, ...scenario.changesAt.filter((c) => c > end).map((c) => c - end + to));
  out.changesAt = changes;
  return Object.freeze(out);
}
