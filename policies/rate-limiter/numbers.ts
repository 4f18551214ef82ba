import { above, atLeast, atMost, defineRule, intAtLeast, integer, number, type Rule } from '../../lib/options.js';

/** A finite rate per second greater than zero. */
export const perSecond: Rule<number> = /* @__PURE__ */ defineRule(() => number('expected a number per second', above(0, 'expected a number greater than 0')));

/** An integer >= 1. */
export const positiveInt: Rule<number> = /* @__PURE__ */ intAtLeast(1);

/** An integer >= 0. */
export const nonNegativeInt: Rule<number> = /* @__PURE__ */ intAtLeast(0);

/** An integer in [`min`, `max`]. */
export function intInRange(min: number, max: number): Rule<number> {
  const message = `expected an integer in [${min}, ${max}]`;
  return integer(message, atLeast(min, message), atMost(max, message));
}
