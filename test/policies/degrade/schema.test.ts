/**
 * The plain option checks of `degrade` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { degradeOptions, type DegradeOptions } from '../../../policies/degrade/options.js';
import { decisionTree, decisionTreeOptions, type DecisionTreeOptions } from '../../../policies/degrade/decision-tree.js';
import { DecisionTreeOptionsSchema, DegradeOptionsSchema } from '../../../policies/degrade/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'degrade',
  degradeOptions,
  DegradeOptionsSchema,
  [{ when: yes, to: () => 1 }, { when: decisionTree(), signals: { cpu: 0.5, qps: () => 3 }, to: () => 1, rateWindowMs: 1, name: 'd', clock }],
  [{}, { when: 1, to: () => 1 }, { when: yes }, { when: yes, to: 1 }, { when: yes, to: () => 1, signals: { cpu: 'hot', qps: 1, x: {} } }, { when: yes, to: () => 1, signals: [] }, { when: yes, to: () => 1, rateWindowMs: 0 }],
);
parity('decisionTree', decisionTreeOptions, DecisionTreeOptionsSchema, [{}, { qpsHigh: 10, qpsMid: 10, cpuHigh: 0, cpuCritical: 1, healthyMin: 0.5 }], [
  { qpsHigh: -1 },
  { qpsHigh: 10, qpsMid: 20 },
  { cpuHigh: 2 },
  { cpuCritical: -1, qpsMid: 1e9 },
  { healthyMin: 'x', qpsMid: 1e9 },
]);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<DecisionTreeOptions>().toEqualTypeOf<z.input<typeof DecisionTreeOptionsSchema>>();
    // `to` is typed by its answer type F by hand, as the schema cannot say.
    expectTypeOf<Omit<DegradeOptions<unknown>, 'to'>>().toEqualTypeOf<Omit<z.input<typeof DegradeOptionsSchema>, 'to'>>();
  });
});
