import { describe, expect, it } from 'vitest';
import { Resolver } from '../../config/resolve.js';
import { TestClock } from '../../lib/testing.js';

const isNumber = (v: unknown): v is number => typeof v === 'number';

describe('Resolver', () => {
  it('keeps the handlers and the environment it was given', () => {
    const handlers = { f: () => 1 };
    const env = { clock: new TestClock(0) };
    const r = new Resolver(handlers, env);
    expect(r.handlers).toBe(handlers);
    expect(r.env).toBe(env);
    expect(r.issues).toEqual([]);
  });

  it('fn returns the function named, with no issue', () => {
    const f = () => 'answer';
    const r = new Resolver({ f }, {});
    expect(r.fn('f', 'policies[0].fallback')).toBe(f);
    expect(r.issues).toEqual([]);
  });

  it('fn collects a missing and an ill-typed handler at their paths, and gives a placeholder that returns undefined', () => {
    const r = new Resolver({ notAFunction: 42 }, {});
    const missing = r.fn<() => unknown>('nope', 'policies[0].fallback');
    const wrong = r.fn<() => unknown>('notAFunction', 'policies[1].handle');
    expect(missing()).toBeUndefined();
    expect(wrong()).toBeUndefined();
    expect(r.issues).toEqual([
      { path: 'policies[0].fallback', message: 'no handler named "nope" was given' },
      { path: 'policies[1].handle', message: 'handler "notAFunction" must be a function' },
    ]);
  });

  it('value returns what the check accepts, else undefined and an issue naming what was expected', () => {
    const r = new Resolver({ limit: 5, name: 'x' }, {});
    expect(r.value('limit', 'a', isNumber, 'a number')).toBe(5);
    expect(r.value('name', 'b', isNumber, 'a number')).toBeUndefined();
    expect(r.value('absent', 'c', isNumber, 'a number')).toBeUndefined();
    expect(r.issues).toEqual([
      { path: 'b', message: 'handler "name" must be a number' },
      { path: 'c', message: 'no handler named "absent" was given' },
    ]);
  });

  it('optionalFn: no name, no lookup and no issue; a name is looked up like fn', () => {
    const f = () => 1;
    const r = new Resolver({ f }, {});
    expect(r.optionalFn(undefined, 'p')).toBeUndefined();
    expect(r.issues).toEqual([]);
    expect(r.optionalFn('f', 'p')).toBe(f);
    expect(r.optionalFn('g', 'q')).toBeTypeOf('function');
    expect(r.issues).toEqual([{ path: 'q', message: 'no handler named "g" was given' }]);
  });
});
