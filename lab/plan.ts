import { CLAIMS } from './claims.js';
import { FAULT_NAMES, FOCUSED_NAMES, MODEL, SCENARIO_NAMES, type ScenarioName } from './model.js';
import type { Claim } from './predicates.js';
import { ROW_NAMES, ROWS, type RowName } from './rows.js';

/** `npm start`'s default seeds: 1 to 3 (the published figures take 20). */
export const START_SEEDS = 3;
/**
 * `npm start`'s run length, ms: the published runs' (180 s), so its figures, recovery among them, are measured
 * as the published ones are; what `npm start` leaves out is seeds and the scenarios no claim of a row needs.
 */
export const START_DURATION_MS = MODEL.durationMs;

/** The scenario a row runs in when no claim names one (so every row is shown). */
const FALLBACK_SCENARIO: ScenarioName = 'hardOutage';

/**
 * The runs `npm start` makes by default: each row in the scenarios its claims name, the row a claim is judged
 * against there too, a row no claim places in the hard outage, a check row where its check needs it, and the baseline in the five faults (the reference
 * of the report's deltas; in a focused scenario only where a claim is judged against it, to stay within a minute).
 * The published command runs more ({@link publishPlan}).
 */
export function startPlan(claims: readonly Claim[] = CLAIMS): Map<RowName, Set<ScenarioName>> {
  const plan = new Map<RowName, Set<ScenarioName>>(ROW_NAMES.map((r) => [r, new Set<ScenarioName>()]));
  for (const c of claims) {
    if (c.needs !== undefined) continue;
    for (const s of c.scenarios) {
      plan.get(c.strategy)!.add(s);
      if (c.relativeTo !== undefined) plan.get(c.relativeTo)!.add(s);
    }
  }
  for (const scenarios of plan.values()) if (scenarios.size === 0) scenarios.add(FALLBACK_SCENARIO);
  checkRowsIn(plan);
  // the reference of every delta in the report
  for (const s of FAULT_NAMES) plan.get('baseline')!.add(s);
  return plan;
}

/**
 * The runs of the published figures (`npm run lab:publish`): every row in each of the five faults; in a focused
 * scenario (lab/model.ts, `FOCUSED_NAMES`) only the rows whose claims name it, the rows those claims are
 * compared with, and the baseline; a check row only where its check needs it (every row there would take the publication past its 30 minutes on two cores,
 * for figures no claim reads).
 */
export function publishPlan(claims: readonly Claim[] = CLAIMS): Map<RowName, Set<ScenarioName>> {
  const plan = new Map<RowName, Set<ScenarioName>>(ROW_NAMES.map((r) => [r, new Set<ScenarioName>(FAULT_NAMES)]));
  const focused = new Set<ScenarioName>(FOCUSED_NAMES);
  for (const c of claims) {
    if (c.needs !== undefined) continue;
    for (const s of c.scenarios) {
      if (!focused.has(s)) continue;
      plan.get(c.strategy)!.add(s);
      if (c.relativeTo !== undefined) plan.get(c.relativeTo)!.add(s);
    }
  }
  for (const s of FOCUSED_NAMES) plan.get('baseline')!.add(s);
  checkRowsIn(plan);
  return plan;
}

/** A check row (lab/rows.ts, `checkIn`) runs in the scenarios its check needs, and nowhere else. */
function checkRowsIn(plan: Map<RowName, Set<ScenarioName>>): void {
  for (const row of ROW_NAMES) {
    const only: readonly ScenarioName[] | undefined = (ROWS[row] as { checkIn?: readonly ScenarioName[] }).checkIn;
    if (only !== undefined) plan.set(row, new Set(only));
  }
}

/** How many runs a plan makes per seed. */
export function runsOf(plan: Map<RowName, Set<ScenarioName>>): number {
  let n = 0;
  for (const scenarios of plan.values()) n += scenarios.size;
  return n;
}

/**
 * What the default run leaves out, per row, for the screen: `naiveRetry: latency, errors, flapping` (of the five
 * faults, and of the focused scenarios the published figures run it in).
 */
export function leftOut(plan: Map<RowName, Set<ScenarioName>>, published: Map<RowName, Set<ScenarioName>> = publishPlan()): string[] {
  const out: string[] = [];
  for (const [row, scenarios] of plan) {
    const missing = SCENARIO_NAMES.filter((s) => !scenarios.has(s) && published.get(row)!.has(s));
    if (missing.length > 0) out.push(`${row}: ${missing.join(', ')}`);
  }
  return out;
}
