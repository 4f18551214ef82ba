import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../../lab/claims.js';
import { leftOut, publishPlan, runsOf, startPlan } from '../../lab/plan.js';
import { FAULT_NAMES, FOCUSED_NAMES, SCENARIO_NAMES } from '../../lab/model.js';

// every focused scenario's fault ends at 60 s
import { ROW_NAMES } from '../../lab/rows.js';
import { TRIP_RULES, TRIP_SCENARIOS } from '../../lab/trip-rules.js';

describe('startPlan', () => {
  const plan = startPlan();

  it('runs every row somewhere', () => {
    expect([...plan.keys()]).toEqual(ROW_NAMES);
    for (const [row, scenarios] of plan) expect(scenarios.size, row).toBeGreaterThan(0);
  });

  it('runs each claim’s row, and the row it is compared with, in every scenario the claim names', () => {
    for (const c of CLAIMS) {
      if (c.needs !== undefined) continue;
      for (const s of c.scenarios) {
        expect(plan.get(c.strategy)!.has(s), `${c.id} in ${s}`).toBe(true);
        if (c.relativeTo !== undefined) expect(plan.get(c.relativeTo)!.has(s), `${c.id}: ${c.relativeTo} in ${s}`).toBe(true);
      }
    }
  });

  it('names what it leaves out, row by row', () => {
    const only = startPlan([{ id: 'x.y', strategy: 'standard', text: '', scenarios: ['errors'], metric: 'answered', op: '>=', bound: 0, rule: { over: 'median' }, relativeTo: 'baseline' }]);
    expect(only.get('standard')).toEqual(new Set(['errors']));
    expect(only.get('baseline')).toEqual(new Set(FAULT_NAMES));
    expect(only.get('naiveRetry')).toEqual(new Set(['hardOutage']));
    // of what the published figures run: the five faults, and the focused scenarios of its claims
    expect(leftOut(only)).toContain('standard: hardOutage, latency, capacityDrop, flapping, networkDelay, slowdown, waves');
  });
});

describe('publishPlan', () => {
  it('runs every row in the five faults, and in a focused scenario only the rows its claims need and the baseline', () => {
    const only = publishPlan([
      { id: 'x.y', strategy: 'layeredBreakers', text: '', scenarios: ['methodSick'], metric: 'healthyRealInFault', op: '>=', bound: 0, rule: { over: 'median' }, relativeTo: 'failFast' },
      { id: 'x.z', strategy: 'standard', text: '', scenarios: ['errors'], metric: 'answered', op: '>=', bound: 0, rule: { over: 'median' } },
    ]);
    expect(only.get('layeredBreakers')).toEqual(new Set([...FAULT_NAMES, 'methodSick']));
    expect(only.get('failFast')).toEqual(new Set([...FAULT_NAMES, 'methodSick']));
    expect(only.get('standard')).toEqual(new Set(FAULT_NAMES));
    expect(only.get('baseline')).toEqual(new Set(SCENARIO_NAMES));
    // the check rows of the trip rules run only where their check needs them
    const checks = ROW_NAMES.filter((r) => TRIP_RULES[r as keyof typeof TRIP_RULES] !== undefined);
    expect(checks).toEqual(['dynamicBreaker', 'ratioBreaker']);
    for (const r of checks) expect(only.get(r)).toEqual(new Set(TRIP_SCENARIOS));
    expect(runsOf(only)).toBe((ROW_NAMES.length - checks.length) * FAULT_NAMES.length + 2 + FOCUSED_NAMES.length + checks.length * TRIP_SCENARIOS.length);
  });

  it('gives npm start the check rows where their check needs them, and nowhere else', () => {
    const plan = startPlan();
    for (const r of ['dynamicBreaker', 'ratioBreaker'] as const) expect(plan.get(r)).toEqual(new Set(TRIP_SCENARIOS));
  });

  it('covers every claim’s runs, and the default run leaves out only what it publishes', () => {
    const plan = publishPlan();
    for (const c of CLAIMS) for (const s of c.scenarios) expect(plan.get(c.strategy)!.has(s), `${c.id} in ${s}`).toBe(true);
    // a row that runs everything the published figures do has nothing left out
    expect(leftOut(plan)).toEqual([]);
    // the default run leaves out the baseline where no claim is judged against it
    expect(leftOut(startPlan())).toContain('baseline: avalanche, hanging, methodSick, duplicates, coldCache, networkDelay');
    expect(leftOut(startPlan()).filter((line) => line.includes('avalanche'))).toHaveLength(1);
  });
});
