import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { breakerRegistryOptions, isPlainObject } from '../../../policies/breaker-registry/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(breakerRegistryOptions, input, 'breakerRegistry');
const DEFAULTS = "expected breaker options (an object of the default breaker's, circuit-breaker or SRE options)";

describe('breakerRegistryOptions', () => {
  it('accepts nothing: breakers dropped after 5 minutes idle, named breakers', () => {
    expect(check({})).toEqual({ idleMs: 300_000, name: 'breakers' });
  });

  it('accepts every option; the defaults are passed on as given, for the breaker’s own rules to check', () => {
    const clock = new TestClock();
    const random = () => 0.5;
    const defaults = { strategy: 'errorRatio', threshold: 7 }; // out of range for errorRatio, but not this rule's to say
    const all = { defaults, idleMs: 1, name: 'hosts', clock, random };
    const out = check(all);
    expect(out).toEqual(all);
    expect(out.defaults).toBe(defaults);
  });

  it('defaults must be a plain object: no array, class instance, null or string', () => {
    for (const bad of [[], new Map(), new Date(), null, 'sre', Object.create({ family: 'sre' }) as object]) {
      expect(issuesOf(() => check({ defaults: bad }))).toEqual([{ path: 'defaults', message: DEFAULTS }]);
    }
    expect(check({ defaults: Object.create(null) as object }).defaults).toEqual({});
  });

  it('idleMs is milliseconds above zero; random a function; unknown keys refused', () => {
    expect(issuesOf(() => check({ idleMs: 0 }))).toEqual([{ path: 'idleMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ idleMs: Infinity }))).toEqual([{ path: 'idleMs', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ random: 4 }))).toEqual([{ path: 'random', message: 'expected a function returning a number in [0, 1)' }]);
    expect(issuesOf(() => check({ maxKeys: 10 }))).toEqual([{ path: 'maxKeys', message: 'unknown option' }]);
  });
});

describe('isPlainObject', () => {
  it('is true for object literals and objects without a prototype only', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject({ a: 1 })).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    for (const v of [[], new Map(), new Date(), null, undefined, 'x', 1, () => ({}), Object.create({})]) expect(isPlainObject(v)).toBe(false);
  });
});
