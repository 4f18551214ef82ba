import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { decisionTree } from '../../../policies/degrade/decision-tree.js';
import { degradeOptions } from '../../../policies/degrade/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(degradeOptions, input, 'degrade');
const to = () => 'cached';

describe('degradeOptions', () => {
  it('needs when and to: no signals of its own, a 10 s rate window, named degrade', () => {
    const when = () => false;
    expect(check({ when, to })).toEqual({ when, to, signals: {}, rateWindowMs: 10_000, name: 'degrade' });
  });

  it('when is a decision tree or a predicate; signals any signal source by name', () => {
    const tree = decisionTree();
    const clock = new TestClock();
    const signals = { cpu: 0.5, health: () => 1, queue: { value: () => 3 } };
    expect(check({ when: tree, to, signals, rateWindowMs: 1, name: 'shed', clock })).toEqual({ when: tree, to, signals, rateWindowMs: 1, name: 'shed', clock });
  });

  it('when and to are required and typed', () => {
    expect(issuesOf(() => check({}))).toEqual([
      { path: 'when', message: 'expected decisionTree(...) or a predicate (signals) => boolean' },
      { path: 'to', message: 'expected a handler function (info, ctx) => value' },
    ]);
    expect(issuesOf(() => check({ when: { qpsHigh: 1 }, to: 'cached' }))).toEqual([
      { path: 'when', message: 'expected decisionTree(...) or a predicate (signals) => boolean' },
      { path: 'to', message: 'expected a handler function (info, ctx) => value' },
    ]);
  });

  it('each bad signal is named by its key; signals itself must be a plain object', () => {
    expect(issuesOf(() => check({ when: to, to, signals: { cpu: 'high', qps: 3 } }))).toEqual([
      { path: 'signals.cpu', message: 'expected a number, a function, { value() } or an Observable<number>' },
    ]);
    expect(issuesOf(() => check({ when: to, to, signals: [1] }))).toEqual([{ path: 'signals', message: 'Invalid input: expected record, received array' }]);
  });

  it('rateWindowMs is milliseconds above zero; unknown keys are refused', () => {
    expect(issuesOf(() => check({ when: to, to, rateWindowMs: 0 }))).toEqual([{ path: 'rateWindowMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ when: to, to, fallback: to }))).toEqual([{ path: 'fallback', message: 'unknown option' }]);
  });
});
