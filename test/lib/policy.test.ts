import { describe, expect, expectTypeOf, it } from 'vitest';
import { ANSWER, RUN, type AltOf, type Policy } from '../../lib/policy.js';

describe('lib/policy.ts', () => {
  it('RUN and ANSWER are registered symbols, so two copies of the package use the same keys', () => {
    expect(RUN).toBe(Symbol.for('breakwater.run'));
    expect(ANSWER).toBe(Symbol.for('breakwater.answer'));
    expect(RUN).not.toBe(ANSWER);
  });

  it('AltOf reads the answer type of a policy, never for one that only passes results through, and distributes over unions', () => {
    expectTypeOf<AltOf<Policy<string>>>().toEqualTypeOf<string>();
    expectTypeOf<AltOf<Policy>>().toEqualTypeOf<never>();
    expectTypeOf<AltOf<Policy<string> | Policy<number> | Policy>>().toEqualTypeOf<string | number>();
    expectTypeOf<AltOf<{ name: string }>>().toEqualTypeOf<never>();
  });
});
