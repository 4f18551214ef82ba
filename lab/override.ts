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
 * What a run may change of its scenario's fault (its start and end stay the scenario's):
 * `errorRate`, the chance that C fails a job it finishes during the fault, in place of the scenario's;
 * `flapPeriodMs`, C down for that long then up for as long, from the fault's start to its end (in place of
 * the scenario's down periods).
 */
export interface ScenarioOverride {
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
const scenarioRule = object({ errorRate: optional(ratio), flapPeriodMs: optional(positiveMs) });

/** {@link MODEL} with `override`'s numbers (MODEL itself when there are none); a bad number throws a ConfigError naming it. */
export function modelWith(override: ModelOverride = {}): Model {
  const checked = checkOptions(modelRule, override, 'lab model');
  const set = Object.entries(checked).filter(([, v]) => v !== undefined);
  return set.length === 0 ? MODEL : Object.freeze({ ...MODEL, ...Object.fromEntries(set) });
}

/** `scenario` with `override`'s fault (the scenario itself when there is none); a bad value throws a ConfigError naming it. */
export function scenarioWith(scenario: Scenario, override: ScenarioOverride = {}): Scenario {
  const { errorRate, flapPeriodMs } = checkOptions(scenarioRule, override, 'lab scenario');
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
