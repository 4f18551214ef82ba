import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { fallbackOptions, handlerRule } from '../../../policies/fallback/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(fallbackOptions, input, 'fallback');

describe('fallbackOptions', () => {
  it('every option may be left out, and none gets a default here (the name depends on the factory)', () => {
    expect(check({})).toEqual({});
    const clock = new TestClock();
    const handle = () => true;
    const all = { handle, handleResult: handle, name: 'cached', clock };
    expect(check(all)).toEqual(all);
  });

  it('handle and handleResult are functions, name a non-empty string, clock a Clock', () => {
    expect(issuesOf(() => check({ handle: 'TypeError' }))).toEqual([{ path: 'handle', message: 'expected a function' }]);
    expect(issuesOf(() => check({ handleResult: null }))).toEqual([{ path: 'handleResult', message: 'expected a function' }]);
    expect(issuesOf(() => check({ name: '' }))).toEqual([{ path: 'name', message: 'expected a non-empty string' }]);
    expect(issuesOf(() => check({ clock: Date }))).toEqual([{ path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
  });

  it('refuses unknown keys (a handler is an argument, not an option)', () => {
    expect(issuesOf(() => check({ handler: () => 1 }))).toEqual([{ path: 'handler', message: 'unknown option' }]);
  });
});

describe('handlerRule', () => {
  it('accepts any function, and names a value that is not one a fallback handler', () => {
    const h = () => 'cached';
    expect(checkOptions(handlerRule, h, 'fallback')).toBe(h);
    expect(issuesOf(() => checkOptions(handlerRule, 'cached', 'fallback'))).toEqual([{ path: '', message: 'expected a fallback handler function (error, ctx) => value' }]);
  });
});
