import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { chaosOptions } from '../../../policies/chaos/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(chaosOptions, input, 'chaos');

describe('chaosOptions', () => {
  it('one of fault, latency or result is enough: injection rate 0.001 (Polly’s), enabled, named chaos', () => {
    expect(check({ latency: 50 })).toEqual({ latency: 50, injectionRate: 0.001, enabled: true, name: 'chaos' });
    const result = () => 'stub';
    expect(check({ result })).toEqual({ result, injectionRate: 0.001, enabled: true, name: 'chaos' });
  });

  it('a fault may be any value, null included, or a function; latency a number of ms >= 0 or a function', () => {
    expect(check({ fault: null }).fault).toBeNull();
    expect(check({ fault: 'down' }).fault).toBe('down');
    const make = () => new Error('x');
    expect(check({ fault: make }).fault).toBe(make);
    expect(check({ latency: 0 }).latency).toBe(0);
    const ms = () => 10;
    expect(check({ latency: ms }).latency).toBe(ms);
  });

  it('accepts every option in its documented form', () => {
    const clock = new TestClock();
    const random = () => 0;
    const when = () => false;
    const all = { latency: 5, fault: 'x', injectionRate: 1, enabled: when, random, name: 'monkey', clock };
    expect(check(all)).toEqual(all);
    expect(check({ latency: 5, injectionRate: 0, enabled: false })).toMatchObject({ injectionRate: 0, enabled: false });
  });

  it('nothing to inject names fault; fault and result together name result', () => {
    expect(issuesOf(() => check({}))).toEqual([{ path: 'fault', message: 'give at least one of fault, latency or result' }]);
    expect(issuesOf(() => check({ injectionRate: 0.5 }))).toEqual([{ path: 'fault', message: 'give at least one of fault, latency or result' }]);
    expect(issuesOf(() => check({ fault: 'x', result: () => 1 }))).toEqual([{ path: 'result', message: 'fault and result are exclusive (pipe two chaos policies to have both)' }]);
  });

  it('latency below zero, a rate outside [0, 1], a non-function result, enabled or random: each named', () => {
    expect(issuesOf(() => check({ latency: -1 }))).toEqual([{ path: 'latency', message: 'expected a number >= 0' }]);
    expect(issuesOf(() => check({ latency: 'slow' }))).toEqual([{ path: 'latency', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ fault: 1, injectionRate: 1.5 }))).toEqual([{ path: 'injectionRate', message: 'expected a number in [0, 1]' }]);
    expect(issuesOf(() => check({ fault: 1, injectionRate: -0.1 }))).toEqual([{ path: 'injectionRate', message: 'expected a number in [0, 1]' }]);
    expect(issuesOf(() => check({ result: 'stub' }))).toEqual([{ path: 'result', message: 'expected a function' }]);
    expect(issuesOf(() => check({ fault: 1, enabled: 'yes' }))).toEqual([{ path: 'enabled', message: 'Invalid input: expected boolean, received string' }]);
    expect(issuesOf(() => check({ fault: 1, random: 0.5 }))).toEqual([{ path: 'random', message: 'expected a function returning a number in [0, 1)' }]);
    expect(issuesOf(() => check({ fault: 1, rate: 0.5 }))).toEqual([{ path: 'rate', message: 'unknown option' }]);
  });

  it('a problem with a key skips the cross-field rules only when it is a wrong type', () => {
    // a wrong type: the exclusivity rule is not run on top of it
    expect(issuesOf(() => check({ fault: 'x', result: 'y' }))).toEqual([{ path: 'result', message: 'expected a function' }]);
    // a range broken: the cross-field rules still run
    expect(issuesOf(() => check({ injectionRate: 2 }))).toEqual([
      { path: 'injectionRate', message: 'expected a number in [0, 1]' },
      { path: 'fault', message: 'give at least one of fault, latency or result' },
    ]);
  });
});
