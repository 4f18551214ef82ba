/**
 * Manual mutation analysis of lib/options.ts: each test pins a path format or
 * a message no other test noticed being changed. (The other blocks of this
 * file moved to the test files of the modules they test.)
 */
import { describe, expect, it } from 'vitest';
import { isConfigError, retry, timeout } from '../../../api/index.js';
import { fromConfig } from '../../../api/config.js';
import { formatPath } from '../../../lib/schemas.js';
import { issuesOf } from '../../helpers/config-issues.js';

describe('lib/options.ts: paths and messages', () => {
  it('formats paths with dots between names and brackets around indexes', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['policies', 1, 'backoff', 'ms'])).toBe('policies[1].backoff.ms');
    expect(formatPath([0, 'a'])).toBe('[0].a');
    expect(formatPath(['a', 2, 3])).toBe('a[2][3]');
  });

  it('reports unknown keys one by one, a union by its closest branch, and the rule of each number helper', () => {
    expect(issuesOf(() => retry({ maxAttempts: 0 }))).toEqual([{ path: 'maxAttempts', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => retry({ maxAttempts: 1.5 }))).toEqual([{ path: 'maxAttempts', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => timeout({ ms: 0 }))).toEqual([{ path: 'ms', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => timeout({ ms: 'x' as never }))).toEqual([{ path: 'ms', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => timeout({ ms: 5, a: 1, b: 2 } as never))).toEqual([
      { path: 'a', message: 'unknown option' },
      { path: 'b', message: 'unknown option' },
    ]);
    expect(issuesOf(() => timeout({ ms: 5, clock: {} as never }))).toEqual([{ path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
    expect(issuesOf(() => retry({ random: 1 as never }))).toEqual([{ path: 'random', message: 'expected a function returning a number in [0, 1)' }]);
    expect(issuesOf(() => timeout({ ms: 5, name: '' }))).toEqual([{ path: 'name', message: 'expected a non-empty string' }]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'chaos', injectionRate: 2 }] }))).toEqual([{ path: 'policies[0].injectionRate', message: 'expected a number in [0, 1]' }]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'retry', backoff: { kind: 'constant', ms: -1 } }] }))).toEqual([
      { path: 'policies[0].backoff.ms', message: 'expected a number >= 0' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'hedge', maxHedged: 0 }] }))).toEqual([{ path: 'policies[0].maxHedged', message: 'expected an integer >= 1' }]);
    // a union reports the branch that got furthest: a clock that lacks only clearTimeout
    const half = { now: () => 0, setTimeout: () => 0 };
    expect(issuesOf(() => timeout({ ms: 5, clock: half as never }))[0]!.path).toBe('clock');
  });

  it('a union reports the branch with the fewest issues', () => {
    // as a circuit breaker: one issue (no strategy); as an SRE breaker: two (k, bogus)
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'm', defaults: { k: 'x', bogus: 1 } }] })).map((i) => i.path)).toEqual([
      'policies[0].defaults.strategy',
    ]);
  });

  it('a union of entries reports the closest branch, with its nested path', () => {
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'degrade', when: { decisionTree: { nope: 1 } }, to: 'f' }] }, { f: () => 1 }))).toEqual([
      { path: 'policies[0].when.decisionTree.nope', message: 'unknown option' },
    ]);
  });
});
