import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import {
  checkOptions,
  clock,
  either,
  formatPath,
  intAtLeast,
  name,
  nonNegativeMs,
  nullable,
  number,
  object,
  omit,
  oneOf,
  optional,
  positiveMs,
  predicate,
  random,
  ratio,
  typeName,
  withDefault,
  below,
  boolean,
  fn,
  type Rule,
} from '../../lib/options.js';
import { TestClock } from '../../lib/testing.js';

function issuesOf(rule: Rule<unknown>, input: unknown): { path: string; message: string }[] {
  try {
    checkOptions(rule, input, 'p');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return [...(e as ConfigError).issues];
  }
  return [];
}

describe('formatPath', () => {
  it('writes keys with dots and indexes in brackets', () => {
    expect(formatPath(['policies', 1, 'maxAttempts'])).toBe('policies[1].maxAttempts');
    expect(formatPath([0, 'a'])).toBe('[0].a');
    expect(formatPath([])).toBe('');
  });
});

describe('typeName', () => {
  it('names values as the type messages do', () => {
    expect(typeName('x')).toBe('string');
    expect(typeName(null)).toBe('null');
    expect(typeName([])).toBe('array');
    expect(typeName({})).toBe('object');
    expect(typeName(Number.NaN)).toBe('NaN');
    expect(typeName(-Infinity)).toBe('-Infinity');
    expect(typeName(new Map())).toBe('Map');
    expect(typeName(undefined)).toBe('undefined');
  });
});

describe('number rules', () => {
  it('positiveMs: a finite number above 0', () => {
    expect(issuesOf(positiveMs, 1)).toEqual([]);
    expect(issuesOf(positiveMs, 0)).toEqual([{ path: '', message: 'expected a number greater than 0' }]);
    expect(issuesOf(positiveMs, Infinity)).toEqual([{ path: '', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(positiveMs, '5')).toEqual([{ path: '', message: 'expected a finite number of milliseconds' }]);
  });
  it('nonNegativeMs: zero allowed, below zero not', () => {
    expect(issuesOf(nonNegativeMs, 0)).toEqual([]);
    expect(issuesOf(nonNegativeMs, -1)).toEqual([{ path: '', message: 'expected a number >= 0' }]);
    expect(issuesOf(nonNegativeMs, Number.NaN)).toEqual([{ path: '', message: 'expected a finite number of milliseconds' }]);
  });
  it('ratio: [0, 1] inclusive', () => {
    expect(issuesOf(ratio, 0)).toEqual([]);
    expect(issuesOf(ratio, 1)).toEqual([]);
    expect(issuesOf(ratio, 1.01)).toEqual([{ path: '', message: 'expected a number in [0, 1]' }]);
    expect(issuesOf(ratio, -0.01)).toEqual([{ path: '', message: 'expected a number in [0, 1]' }]);
  });
  it('intAtLeast: fractions, small numbers and wrong types in one message', () => {
    const r = intAtLeast(2);
    expect(issuesOf(r, 2)).toEqual([]);
    for (const bad of [1, 2.5, 'x', Infinity]) expect(issuesOf(r, bad)).toEqual([{ path: '', message: 'expected an integer >= 2' }]);
  });
  it('number with several checks reports each broken one', () => {
    const r = number('t', below(1, 'lt1'), below(0.5, 'lt.5'));
    expect(issuesOf(r, 2)).toEqual([
      { path: '', message: 'lt1' },
      { path: '', message: 'lt.5' },
    ]);
  });
});

describe('value rules', () => {
  it('oneOf words one value and several as zod does', () => {
    expect(issuesOf(oneOf(['a', 'b']), 'c')).toEqual([{ path: '', message: 'Invalid option: expected one of "a"|"b"' }]);
    expect(issuesOf(oneOf(['a']), 'c')).toEqual([{ path: '', message: 'Invalid input: expected "a"' }]);
    expect(issuesOf(oneOf(['a', 'b'], 'pick one'), 1)).toEqual([{ path: '', message: 'pick one' }]);
  });
  it('name: a non-empty string', () => {
    expect(issuesOf(name, '')).toEqual([{ path: '', message: 'expected a non-empty string' }]);
    expect(issuesOf(name, 3)).toEqual([{ path: '', message: 'Invalid input: expected string, received number' }]);
  });
  it('boolean, clock, random, predicate, fn', () => {
    expect(issuesOf(boolean, 'yes')).toEqual([{ path: '', message: 'Invalid input: expected boolean, received string' }]);
    expect(issuesOf(clock, new TestClock())).toEqual([]);
    expect(issuesOf(clock, { now: () => 0 })).toEqual([{ path: '', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
    expect(issuesOf(random, 0.5)).toEqual([{ path: '', message: 'expected a function returning a number in [0, 1)' }]);
    expect(issuesOf(predicate, true)).toEqual([{ path: '', message: 'expected a function' }]);
    expect(issuesOf(fn('expected a handler'), 1)).toEqual([{ path: '', message: 'expected a handler' }]);
  });
  it('optional, nullable and withDefault', () => {
    expect(checkOptions(optional(positiveMs), undefined, 'p')).toBeUndefined();
    expect(checkOptions(nullable(positiveMs), null, 'p')).toBeNull();
    expect(checkOptions(withDefault(positiveMs, 7), undefined, 'p')).toBe(7);
    expect(issuesOf(withDefault(positiveMs, 7), 0)).toEqual([{ path: '', message: 'expected a number greater than 0' }]);
  });
  it('either takes the first rule that passes, else the closest', () => {
    const r = either(nonNegativeMs, fn());
    const f = () => 1;
    expect(checkOptions(r, f, 'p')).toBe(f);
    expect(issuesOf(r, -1)).toEqual([{ path: '', message: 'expected a number >= 0' }]);
    expect(issuesOf(r, 'x')).toEqual([{ path: '', message: 'expected a finite number of milliseconds' }]);
  });
});

describe('object', () => {
  const shape = object(
    { a: withDefault(intAtLeast(1), 3), b: optional(positiveMs), c: optional(predicate) },
    (o, add) => {
      if (o.b !== undefined && o.b < o.a) add('b must be >= a', ['b']);
    },
  );
  it('applies defaults and keeps given values', () => {
    expect(checkOptions(shape, {}, 'p')).toEqual({ a: 3 });
    expect(checkOptions(shape, { a: 2, b: 5 }, 'p')).toEqual({ a: 2, b: 5 });
  });
  it('lists every problem with its path, unknown keys after the known ones, in input order', () => {
    expect(issuesOf(shape, { zz: 1, a: 0, b: 'q', yy: 2 })).toEqual([
      { path: 'a', message: 'expected an integer >= 1' },
      { path: 'b', message: 'expected a finite number of milliseconds' },
      { path: 'zz', message: 'unknown option' },
      { path: 'yy', message: 'unknown option' },
    ]);
  });
  it('runs cross-field rules after range problems and unknown keys, not after a wrong type', () => {
    expect(issuesOf(shape, { a: 4, b: 2, q: 1 })).toEqual([
      { path: 'q', message: 'unknown option' },
      { path: 'b', message: 'b must be >= a' },
    ]);
    expect(issuesOf(shape, { a: 0.5, b: 0.1 })).toEqual([{ path: 'a', message: 'expected an integer >= 1' }]);
    expect(issuesOf(shape, { a: 4, b: 2, c: 1 })).toEqual([{ path: 'c', message: 'expected a function' }]);
  });
  it('rejects what is not an object, naming its type', () => {
    expect(issuesOf(shape, 'x')).toEqual([{ path: '', message: 'Invalid input: expected object, received string' }]);
    expect(issuesOf(shape, null)).toEqual([{ path: '', message: 'Invalid input: expected object, received null' }]);
    expect(issuesOf(shape, [])).toEqual([{ path: '', message: 'Invalid input: expected object, received array' }]);
  });
  it('nests paths', () => {
    const outer = object({ inner: object({ n: intAtLeast(0) }) });
    expect(issuesOf(outer, { inner: { n: -1 } })).toEqual([{ path: 'inner.n', message: 'expected an integer >= 0' }]);
  });
  it('omit leaves keys out, so they become unknown', () => {
    const fewer = omit(shape, ['c']);
    expect(Object.keys(fewer.shape)).toEqual(['a', 'b']);
    expect(issuesOf(fewer, { c: () => true })).toEqual([{ path: 'c', message: 'unknown option' }]);
  });
  it('names the policy in the error', () => {
    expect(() => checkOptions(shape, { a: 0 }, 'retry')).toThrow('invalid retry options: a: expected an integer >= 1');
  });
});
