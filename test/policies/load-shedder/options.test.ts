import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { loadShedderOptions } from '../../../policies/load-shedder/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(loadShedderOptions, input, 'loadShedder');

describe('loadShedderOptions', () => {
  it('defaults are go-zero’s: CPU 0.9, a 5 s window in 50 buckets, a 1 s cool-off', () => {
    expect(check({})).toEqual({ cpuThreshold: 0.9, windowMs: 5_000, buckets: 50, coolOffMs: 1_000, reserve: { default: 0, sheddable: 0.1 }, name: 'loadShedder' });
  });

  it('accepts every option in its documented form', () => {
    const clock = new TestClock();
    const cpu = () => 0.3;
    const all = { cpuThreshold: 0.5, cpu, windowMs: 1_000, buckets: 2, coolOffMs: 0.5, reserve: { default: 0.2, sheddable: 0.5 }, name: 'shed', clock };
    expect(check(all)).toEqual(all);
  });

  it('cpuThreshold lies strictly between 0 and 1', () => {
    for (const bad of [0, 1, -0.1, 1.2, Number.NaN, '0.8']) {
      expect(issuesOf(() => check({ cpuThreshold: bad }))).toEqual([{ path: 'cpuThreshold', message: 'expected a number in (0, 1)' }]);
    }
  });

  it('cpu is a signal source; windowMs and coolOffMs ms above zero; buckets an integer >= 2', () => {
    expect(issuesOf(() => check({ cpu: 'os' }))).toEqual([{ path: 'cpu', message: 'expected a number, a function, { value() } or an Observable<number>' }]);
    expect(issuesOf(() => check({ windowMs: 0 }))).toEqual([{ path: 'windowMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ coolOffMs: -1 }))).toEqual([{ path: 'coolOffMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ buckets: 1 }))).toEqual([{ path: 'buckets', message: 'expected an integer >= 2' }]);
    expect(issuesOf(() => check({ buckets: 2.5 }))).toEqual([{ path: 'buckets', message: 'expected an integer >= 2' }]);
    expect(issuesOf(() => check({ threshold: 0.8 }))).toEqual([{ path: 'threshold', message: 'unknown option' }]);
  });
});
