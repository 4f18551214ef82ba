import { describe, expect, it } from 'vitest';
import { bucketsSchema } from '../../../integrations/shared/options.js';

describe('bucketsSchema', () => {
  it('accepts one or more positive, finite, strictly increasing bounds', () => {
    expect(bucketsSchema.parse([0.5])).toEqual([0.5]);
    expect(bucketsSchema.parse([0.005, 0.1, 1, 10])).toEqual([0.005, 0.1, 1, 10]);
  });

  it('refuses an empty list, a bound that is not positive or not finite, and bounds that do not increase', () => {
    for (const bad of [[], [0], [-1, 1], [1, Infinity], [1, Number.NaN]]) expect(bucketsSchema.safeParse(bad).success).toBe(false);
    const flat = bucketsSchema.safeParse([1, 1]);
    expect(flat.success).toBe(false);
    expect(flat.error?.issues.map((i) => i.message)).toEqual(['expected increasing bucket bounds']);
    expect(bucketsSchema.safeParse([2, 1]).error?.issues.map((i) => i.message)).toEqual(['expected increasing bucket bounds']);
  });
});
