import { describe, expect, it } from 'vitest';
import { CRITICALITIES, criticalityOf, criticalityRank, isCriticality } from '../../lib/criticality.js';

describe('criticality', () => {
  it('reads ctx.meta.criticality, and anything else is default', () => {
    expect(criticalityOf({ meta: { criticality: 'critical' } })).toBe('critical');
    expect(criticalityOf({ meta: { criticality: 'sheddable' } })).toBe('sheddable');
    expect(criticalityOf({ meta: { criticality: 'CRITICAL' } })).toBe('default');
    expect(criticalityOf({ meta: {} })).toBe('default');
  });

  it('ranks critical first and sheddable last', () => {
    expect(CRITICALITIES.map(criticalityRank)).toEqual([0, 1, 2]);
    expect(CRITICALITIES.every(isCriticality)).toBe(true);
    expect([undefined, '', 'batch', 1].some(isCriticality)).toBe(false);
  });
});
