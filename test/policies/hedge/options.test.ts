import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { hedgeOptions } from '../../../policies/hedge/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(hedgeOptions, input, 'hedge');
const DELAY_MS = 'expected a number of milliseconds >= 0 (Infinity: hedge only after a failure)';

describe('hedgeOptions', () => {
  it('accepts nothing: one hedge, named hedge (the 2 s delay is the policy’s when neither delay is given)', () => {
    expect(check({})).toEqual({ maxHedged: 1, name: 'hedge' });
  });

  it('accepts every option in its documented form', () => {
    const clock = new TestClock();
    const handle = () => true;
    const all = { delayMs: 50, maxHedged: 3, handle, handleResult: handle, name: 'reads', clock };
    expect(check(all)).toEqual(all);
    const delay = (n: number) => n * 10;
    expect(check({ delay }).delay).toBe(delay);
  });

  it('delayMs is >= 0, Infinity included (hedge only after a failure)', () => {
    expect(check({ delayMs: 0 }).delayMs).toBe(0);
    expect(check({ delayMs: Infinity }).delayMs).toBe(Infinity);
    for (const bad of [-1, '50', Number.NaN]) expect(issuesOf(() => check({ delayMs: bad }))).toEqual([{ path: 'delayMs', message: DELAY_MS }]);
  });

  it('delayMs and delay are exclusive: the problem is named at delay', () => {
    expect(issuesOf(() => check({ delayMs: 10, delay: () => 10 }))).toEqual([{ path: 'delay', message: 'give delayMs or delay, not both' }]);
  });

  it('delay, handle and handleResult are functions; maxHedged an integer >= 1; unknown keys refused', () => {
    expect(issuesOf(() => check({ delay: 10 }))).toEqual([{ path: 'delay', message: 'expected a function' }]);
    expect(issuesOf(() => check({ handle: 'all' }))).toEqual([{ path: 'handle', message: 'expected a function' }]);
    expect(issuesOf(() => check({ handleResult: 1 }))).toEqual([{ path: 'handleResult', message: 'expected a function' }]);
    for (const bad of [0, 1.5, -1]) expect(issuesOf(() => check({ maxHedged: bad }))).toEqual([{ path: 'maxHedged', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ maxAttempts: 2 }))).toEqual([{ path: 'maxAttempts', message: 'unknown option' }]);
  });
});
