import { describe, expect, it } from 'vitest';
import { checkOptions, type Rule } from '../../../lib/options.js';
import { intInRange, nonNegativeInt, perSecond, positiveInt } from '../../../policies/rate-limiter/numbers.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = <T>(rule: Rule<T>, value: unknown) => checkOptions(rule, value, 'rateLimiter');
const messageOf = <T>(rule: Rule<T>, value: unknown) => issuesOf(() => check(rule, value)).map((i) => i.message);

describe('perSecond', () => {
  it('accepts any finite rate above zero, fractions included', () => {
    expect(check(perSecond, 0.25)).toBe(0.25);
    expect(check(perSecond, 1_000)).toBe(1_000);
  });

  it('zero and below break the range; anything not a finite number is the wrong type', () => {
    expect(messageOf(perSecond, 0)).toEqual(['expected a number greater than 0']);
    expect(messageOf(perSecond, -1)).toEqual(['expected a number greater than 0']);
    for (const bad of [Infinity, Number.NaN, '10', undefined]) expect(messageOf(perSecond, bad)).toEqual(['expected a number per second']);
  });
});

describe('positiveInt and nonNegativeInt', () => {
  it('positiveInt: integers from 1', () => {
    expect(check(positiveInt, 1)).toBe(1);
    for (const bad of [0, -1, 1.5, '2']) expect(messageOf(positiveInt, bad)).toEqual(['expected an integer >= 1']);
  });

  it('nonNegativeInt: integers from 0', () => {
    expect(check(nonNegativeInt, 0)).toBe(0);
    for (const bad of [-1, 0.5, null]) expect(messageOf(nonNegativeInt, bad)).toEqual(['expected an integer >= 0']);
  });
});

describe('intInRange', () => {
  it('accepts both ends and names the range in every failure', () => {
    const r = intInRange(1, 10);
    expect(check(r, 1)).toBe(1);
    expect(check(r, 10)).toBe(10);
    for (const bad of [0, 11, 2.5, 'x']) expect(messageOf(r, bad)).toEqual(['expected an integer in [1, 10]']);
  });
});
