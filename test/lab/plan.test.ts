import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../../lab/claims.js';
import { leftOut, startPlan } from '../../lab/plan.js';
import { SCENARIO_NAMES } from '../../lab/model.js';
import { ROW_NAMES } from '../../lab/rows.js';

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
    expect(only.get('baseline')).toEqual(new Set(SCENARIO_NAMES));
    expect(only.get('naiveRetry')).toEqual(new Set(['hardOutage']));
    expect(leftOut(only)).toContain('standard: hardOutage, latency, capacityDrop, flapping');
  });
});
